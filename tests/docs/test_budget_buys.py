"""docs/budgets-steering-repair.md's "What a budget buys" matches the gate's own arithmetic."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from aw_action.ai.catalog import resolve_model
from aw_action.ai.pricing import cost_usd
from aw_action.ai.types import Usage
from aw_action.extensions.budget_rules import MIN_ANSWER_TOKENS, CreditCharge, EffectiveTokenCharge
from aw_action.run.effective_tokens import Multipliers, effective_tokens
from tests.docs.budget_buys import PREFIX, budget_for, replay

DOC = Path(__file__).resolve().parents[2] / "docs" / "budgets-steering-repair.md"
ROW = re.compile(
    r"^\| ([^|]+) \| `([^`]+)` \(([^)]+)\) \| ×([\d.]+) \| ([\d,]+) \| ([\d,]+) \| "
    r"\$([\d.]+) \| (\d+) turns, \$([\d.]+) \|$"
)


def section() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text.split("## What a budget buys", 1)[1].split("\n## ", 1)[0]


def test_every_row_of_the_table_is_what_the_gate_computes() -> None:
    rows = [m.groups() for line in section().splitlines() if (m := ROW.match(line))]
    assert len(rows) == 6 and {r[0] for r in rows} >= {"Anthropic", "OpenAI", "GitHub Models", "Copilot (AWF)"}
    for _, name, model_id, multiplier, et, credits, cost, turns, turns_cost in rows:
        model = resolve_model(name)
        assert model.id == model_id and Multipliers().get(model.id) == float(multiplier)
        need_et = budget_for(name, 20)
        assert et == f"{math.ceil(need_et / 1000) * 1000:,}", name
        assert credits == f"{math.ceil(budget_for(name, 20, 'ai_credits')):,}", name
        assert cost == f"{replay(name, max_effective_tokens=need_et, turns=20).usd:.2f}", name
        bought = replay(name, max_effective_tokens=200_000)
        assert (int(turns), turns_cost) == (bought.turns, f"{bought.usd:.2f}"), name


def test_the_worked_anthropic_example() -> None:
    text = " ".join(section().split())
    model = resolve_model("sonnet")
    first = Usage(cache_write=PREFIX, output=400)
    assert (
        f"9 × (3,000 + 4 × 400) = {effective_tokens(first, 9):,.0f} effective tokens, ${cost_usd(model, first):.4f}"
        in text
    )
    prompt = PREFIX + 19 * 1_900
    last = Usage(cache_read=prompt - 1_900, cache_write=1_900, output=400)
    assert f"Turn 20 sends {prompt:,} tokens, {prompt - 1_900:,} of them from the cache" in text
    assert f"= {effective_tokens(last, 9):,.0f} effective tokens, ${cost_usd(model, last):.4f}" in text
    worst = EffectiveTokenCharge(9).worst(prompt, MIN_ANSWER_TOKENS)
    assert f"9 × ({prompt:,} + 4 × 256) = {worst:,.0f} effective tokens must be left" in text
    credits = CreditCharge(model).worst(prompt, MIN_ANSWER_TOKENS)
    assert f"must be left (for a credit budget, {credits:.2f} credits)" in text


def _yaml_with_blocks(text: str) -> list[dict[str, str]]:
    """The ``with:`` values of every ``uses: org/aw-harness`` step in the Markdown's YAML blocks."""
    steps = []
    for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
        if "org/aw-harness" not in block:
            continue
        values = dict(re.findall(r"^\s+([a-z-]+): ([^#\n]+?)\s*(?:#.*)?$", block.split("with:", 1)[1], re.M))
        steps.append(values)
    return steps


def _turns_bought(model: str, budget: dict[str, float], max_turns: int) -> int:
    return replay(
        model,
        max_effective_tokens=budget.get("max-effective-tokens"),
        max_ai_credits=budget.get("max-ai-credits"),
        turns=max_turns,
    ).turns


def test_the_examples_size_their_budgets_for_the_model_they_name() -> None:
    """A budget that stops a run after a few turns (200,000 effective tokens on ``sonnet`` buys
    four) is a trap: every example buys at least 15 turns of the worked session, or all its
    ``max-turns``, on its own model."""
    checked = 0
    repo = DOC.parents[1]
    for path in sorted(repo.glob("examples/*/config.json")):
        config = json.loads(path.read_text())
        model = config["engine"]["model"]
        budget = config.get("harness", {}).get("budget", {})
        if model.startswith("faux") or not ({"max-effective-tokens", "max-ai-credits"} & set(budget)):
            continue
        max_turns = budget.get("max-turns", 15)
        assert _turns_bought(model, budget, max_turns) >= min(max_turns, 15), path
        checked += 1
    for doc in ("README.md", "docs/action-reference.md"):
        for step in _yaml_with_blocks((repo / doc).read_text()):
            if "model" in step and "max-effective-tokens" in step:
                budget = {"max-effective-tokens": float(step["max-effective-tokens"])}
                assert _turns_bought(step["model"], budget, 15) >= 15, (doc, step)
                checked += 1
    assert checked >= 6
