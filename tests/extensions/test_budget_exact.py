"""Budgets hold exactly, through the real ``anthropic`` and ``openai`` SDKs.

A local model (``tests/servers/budget_model.py``) honours ``max_tokens``, counts the input it is
sent with its own tokenizer and reports that usage, like the APIs. Seeded random runs vary the
budget (effective tokens, AI credits or both, from too small for one request to a few turns),
the critical percent, the answer sizes, the tool output the context grows by and the share of
the input read from a cache. Whatever the mix, the run's effective tokens and credits never pass
their limits, and every request carried a ``max_tokens`` its budget could pay for.
"""

from __future__ import annotations

import io
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aw_action.harness.invocation import Harness
from aw_action.run.result import RunResult
from tests.conftest import base_env
from tests.servers.budget_model import CountingModel, Wire
from tests.servers.wire import WireServer


@dataclass(frozen=True)
class Target:
    wire: Wire
    model: str
    env_key: str
    env_url: str
    et_range: tuple[int, int]
    credit_range: tuple[float, float]


TARGETS = {
    # claude-sonnet-4.6 weighs 9x: its first request alone costs about 20,000 effective tokens
    "anthropic": Target(
        "anthropic", "claude-sonnet-4.6", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", (8_000, 300_000), (0.3, 12.0)
    ),
    "chat": Target("chat", "openai/gpt-4.1", "OPENAI_API_KEY", "OPENAI_BASE_URL", (1_500, 40_000), (0.2, 6.0)),
    "responses": Target("responses", "openai/gpt-5", "OPENAI_API_KEY", "OPENAI_BASE_URL", (1_500, 40_000), (0.1, 5.0)),
}
SEEDS = range(8)


@dataclass(frozen=True)
class Scenario:
    budget: dict[str, float]
    critical: int
    answers: list[int]
    notes_chars: int
    cached: float


def scenario(target: Target, seed: int) -> Scenario:
    rng = random.Random(f"{target.wire}-{seed}")
    kinds = rng.choice([("max-effective-tokens",), ("max-ai-credits",), ("max-effective-tokens", "max-ai-credits")])
    budget: dict[str, float] = {}
    if "max-effective-tokens" in kinds:
        budget["max-effective-tokens"] = rng.randint(*target.et_range)
    if "max-ai-credits" in kinds:
        budget["max-ai-credits"] = round(rng.uniform(*target.credit_range), 2)
    return Scenario(
        budget=budget,
        critical=rng.choice([80, 90, 95, 100]),
        answers=[rng.choice([40, 150, 600, 2_000, 6_000]) for _ in range(rng.randint(3, 10))],
        notes_chars=rng.choice([0, 400, 4_000, 20_000]),
        cached=rng.choice([0.0, 0.0, 0.5, 0.9]),
    )


async def run_against(tmp_path: Path, target: Target, case: Scenario) -> tuple[RunResult, CountingModel, list[Any]]:
    config = {
        "engine": {"model": target.model},
        "harness": {"budget": case.budget, "steering": {"budget-critical-percent": case.critical}},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "prompt.txt").write_text("Read notes.txt again and again, then summarise it.")
    model = CountingModel(target.wire, list(case.answers), cached=case.cached)
    with WireServer(default=model) as server:
        env = base_env(tmp_path, **{target.env_key: "sk-test-budget-0123456789", target.env_url: server.url})
        if target.wire != "anthropic":
            env[target.env_url] = server.url + "/v1"
        (tmp_path / "ws" / "notes.txt").write_text("n" * case.notes_chars)
        stderr = io.StringIO()
        result = await Harness(tmp_path / "config.json", tmp_path / "prompt.txt", env, stderr=stderr).run()
    events = [json.loads(line) for line in stderr.getvalue().splitlines() if line.startswith("{")]
    return result, model, events


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("wire", sorted(TARGETS))
async def test_totals_never_pass_the_limit(tmp_path: Path, wire: str, seed: int) -> None:
    target = TARGETS[wire]
    case = scenario(target, seed)
    result, model, events = await run_against(tmp_path, target, case)
    record = result.record()
    assert result.stop_reason in ("completed", "budget_exceeded"), (record.error, case)
    if "max-effective-tokens" in case.budget:
        assert record.tokens.effective <= case.budget["max-effective-tokens"], case
    if "max-ai-credits" in case.budget:
        assert record.ai_credits is not None and record.ai_credits <= case.budget["max-ai-credits"], case
    assert all(s.max_tokens is not None and s.max_tokens >= 256 for s in model.served)  # each one was sized
    caps = [e for e in events if e["event"] == "budget_cap"]
    assert [c["max_tokens"] for c in caps] == [s.max_tokens for s in model.served if s.max_tokens != caps_max(model)]
    stops = [e for e in events if e["event"] == "budget_exceeded"]
    if result.stop_reason == "budget_exceeded":
        [stop] = stops
        assert stop["trigger"] in ("next_request", "critical_percent", "answer_cut")
        if stop["trigger"] == "answer_cut":
            assert model.served[-1].cut and model.served[-1].output_tokens == stop["max_tokens"]


def caps_max(model: CountingModel) -> int:
    """The model's own maximum: a request not lowered by a budget asks for exactly that."""
    return 64_000 if model.wire == "anthropic" else (32_768 if model.wire == "chat" else 128_000)


async def test_a_tokenizer_that_counts_more_than_the_estimate_is_learned_after_one_request(tmp_path: Path) -> None:
    """The model counts 2.5 characters a token where the estimate assumes 4: the first request is
    underestimated, the second a little (the ratio learned from the first is blurred by the API's
    framing), every later one is sized from what the model reported and measured. The run passes
    its limit by at most those errors (the one error the gates accept)."""
    target = TARGETS["chat"]
    case = Scenario({"max-effective-tokens": 30_000}, 100, [150] * 12, 4_000, 0.0)
    config = {"engine": {"model": target.model}, "harness": {"budget": case.budget}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "prompt.txt").write_text("Read notes.txt again and again, then summarise it.")
    model = CountingModel("chat", list(case.answers), chars_per_token=2.5)
    with WireServer(default=model) as server:
        env = base_env(tmp_path, OPENAI_API_KEY="sk-test-budget-0123456789", OPENAI_BASE_URL=server.url + "/v1")
        (tmp_path / "ws" / "notes.txt").write_text("n" * case.notes_chars)
        stderr = io.StringIO()
        result = await Harness(tmp_path / "config.json", tmp_path / "prompt.txt", env, stderr=stderr).run()
    events = [json.loads(line) for line in stderr.getvalue().splitlines() if line.startswith("{")]
    estimates = [e["input_tokens"] for e in events if e["event"] == "budget_cap"]
    served = model.served
    assert len(served) >= 3 and len(estimates) == len(served)
    errors = [s.input_tokens - est for est, s in zip(estimates, served, strict=True)]
    assert errors[0] > 300  # the first estimate was low by more than a third
    assert errors[1] < errors[0] / 4 and all(e <= 0 for e in errors[2:]), errors
    assert result.record().tokens.effective <= 30_000 + sum(e for e in errors if e > 0)  # gpt-4.1 weighs 1x
