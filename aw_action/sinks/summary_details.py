"""The step summary's collapsed part: tokens per turn, the budgets, the chart, steering notices,
context provenance and what the agent could reach, each a ``<details>`` block below the result
(``sinks/summary.py``).

Every table survives GitHub's renderer (``sinks/markdown.py``); ``max_rows`` elides the middle of
the long ones so the summary fits GitHub's 1 MiB limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from aw_action.run import human
from aw_action.run.budget_kinds import BUDGET_KINDS
from aw_action.run.effective_tokens import base_weighted_tokens
from aw_action.run.state import RunState
from aw_action.sinks import markdown as md
from aw_action.sinks.mermaid import limit_on_scale, token_chart


def details(summary: str, body: str, *, open_: bool = False) -> str:
    """A collapsed block; the blank lines keep its body Markdown."""
    return "\n".join(
        [f"<details{' open' if open_ else ''}>", f"<summary>{summary}</summary>", "", body, "", "</details>"]
    )


def delivered_notices(state: RunState) -> list[dict[str, Any]]:
    """Notices carried by a request (its ``steering`` field), then any other recorded notice."""
    out = [
        {
            "type": r.steering.get("type"),
            "threshold": r.steering.get("threshold"),
            "request_id": r.request_id,
            "turn": r.turn,
        }
        for r in state.ledger.requests
        if r.steering
    ]
    seen = {(n["type"], n["threshold"]) for n in out}
    for notice in state.journal.steering_notices:
        key = (notice.get("type"), notice.get("threshold"))
        if key not in seen:
            seen.add(key)
            out.append(
                {
                    "type": key[0],
                    "threshold": key[1],
                    "request_id": notice.get("request_id"),
                    "turn": notice.get("turn"),
                }
            )
    return out


def _elided(rows: list[list[str]], max_rows: int | None, width: int) -> list[list[str]]:
    if max_rows is None or len(rows) <= max_rows:
        return rows
    head, tail = rows[: max_rows // 2], rows[len(rows) - max_rows // 2 :]
    gap = ["…", f"_{len(rows) - len(head) - len(tail)} rows omitted_"] + [""] * (width - 2)
    return [*head, gap, *tail]


def _offset_s(start: datetime, iso: str) -> float | None:
    try:
        return (datetime.fromisoformat(iso) - start).total_seconds()
    except ValueError:
        return None


def turn_table(state: RunState, max_rows: int | None) -> str:
    rows = []
    for t in state.ledger.turns:
        rows.append(
            [
                str(t.turn),
                md.integer(t.usage.input + t.usage.cache_read + t.usage.cache_write),
                md.integer(t.usage.output + t.usage.reasoning),
                md.integer(t.cumulative_tokens),
                md.integer(t.cumulative_effective_tokens),
                md.usd(t.cumulative_cost_usd),
                human.duration(_offset_s(state.record.started_at, t.ended_at)),
            ]
        )
    totals = state.ledger.totals
    rows = _elided(rows, max_rows, 7)
    rows.append(
        [
            "**Total**",
            f"**{md.integer(totals.input + totals.cache_read + totals.cache_write)}**",
            f"**{md.integer(totals.output + totals.reasoning)}**",
            f"**{md.integer(totals.total)}**",
            f"**{md.integer(state.ledger.effective_tokens)}**",
            f"**{md.usd(state.ledger.cost_usd)}**",
            f"**{human.duration(state.elapsed_ms / 1000)}**",
        ]
    )
    header = ["Turn", "Input Tokens", "Output Tokens", "Cumulative", "Cumulative Effective", "Est. Cost", "Elapsed"]
    return md.table(header, rows, "rrrrrrr")


def totals_line(state: RunState) -> str:
    ledger = state.ledger
    credits = "unknown" if ledger.ai_credits is None else f"{ledger.ai_credits:,.2f}"
    return (
        f"Effective tokens (weighted): **{md.integer(ledger.effective_tokens)}** · Raw tokens: "
        f"**{md.integer(ledger.totals.total)}** · Estimated cost: **{md.usd(ledger.cost_usd)}** · "
        f"AI credits: **{credits}**" + _uncounted_note(state)
    )


def _uncounted_note(state: RunState) -> str:
    """Tokens spent by requests of a turn that never completed (an abort discards that turn)."""
    completed = state.ledger.turns[-1].cumulative_tokens if state.ledger.turns else 0
    extra = state.ledger.totals.total - completed
    if extra <= 0:
        return ""
    return f"\n\nThe totals include {md.integer(extra)} tokens of requests from a turn that did not complete."


def weights_note(state: RunState) -> str:
    """What the two counts mean, with each model's multiplier as the records show it."""
    seen: dict[str, float] = {}
    for r in state.ledger.requests:
        base = base_weighted_tokens(r.usage)
        if base > 0 and r.model not in seen:
            seen[r.model] = r.effective_tokens / base
    weighs = ", ".join(f"{md.code(model)} weighs ×{factor:.3g}" for model, factor in seen.items())
    return (
        "Input and output are raw token counts as the API reported them (cache reads and writes count as "
        "input, reasoning as output). Effective tokens are the weighted count a token budget uses: "
        "multiplier × (input + 0.1 × cache read + 4 × output + 4 × reasoning + cache write)"
        + (f"; {weighs}." if weighs else ".")
    )


def budget_rows(state: RunState, limits: Mapping[str, float]) -> list[list[str]]:
    """One row per budget with a limit (or always shown): ``[label, used, limit, used %]``, in
    people's units. The step summary's table and gh-aw's story (``sinks/gh_aw_story.py``) show them."""
    rows = []
    for kind in BUDGET_KINDS:
        limit = limits.get(kind.name)
        if limit is None and not kind.always_shown:
            continue
        value = kind.used(state)
        rows.append(
            [
                kind.label.removesuffix(" (minutes)"),
                human.amount(kind, value),
                human.limit(kind, limit) if limit else "no limit",
                human.percent(value, limit),
            ]
        )
    return rows


def budget_table(state: RunState, limits: Mapping[str, float]) -> str:
    return md.table(["Budget", "Used", "Limit", "Used %"], budget_rows(state, limits), "lrrr")


def chart(state: RunState, limits: Mapping[str, float]) -> str:
    """The chart and its caption; "" without a completed turn."""
    points = [t.cumulative_effective_tokens for t in state.ledger.turns]
    limit = limits.get("effective_tokens")
    block = token_chart(points, limit)
    if not block:
        return ""
    if limit is None:
        caption = "Cumulative effective tokens after each turn (no effective-token budget)."
    elif not limit_on_scale(points, limit):
        caption = (
            f"Cumulative effective tokens after each turn; the budget ({md.integer(limit)}) is "
            f"{md.integer(limit / max(max(points), 1))}× the usage, so it is left off the scale."
        )
    else:
        caption = (
            f"First line: cumulative effective tokens after each turn; second line: the budget ({md.integer(limit)})."
        )
    return f"{block}\n\n{caption}"


def notices_table(state: RunState) -> str:
    notices = delivered_notices(state)
    if not notices:
        return "_No steering notice was delivered._"
    rows = [
        [
            str(i),
            n["type"],
            f"{n['threshold']}%",
            md.code(str(n["request_id"])) if n["request_id"] else "–",
            str(n["turn"] or "–"),
        ]
        for i, n in enumerate(notices, 1)
    ]
    return md.table(["#", "Type", "Threshold", "Request", "Turn"], rows, "rllll")


def provenance_table(state: RunState, max_rows: int | None) -> str:
    rows = [
        [
            str(e.get("source", "")),
            md.code(str(e["path"])) if e.get("path") else "_(prompt.txt)_",
            md.integer(e.get("tokens")),
            md.integer(e.get("cumulative_tokens")),
        ]
        for e in state.record.provenance
    ]
    if not rows:
        return "_No context entry was recorded._"
    return md.table(["Source", "Path", "Tokens", "Cumulative"], _elided(rows, max_rows, 4), "llrr")


def details_sections(state: RunState, limits: Mapping[str, float], max_rows: int | None) -> list[str]:
    """The collapsed blocks, in order: tokens and budgets (with the chart), notices, provenance,
    the agent's access (every line of it; the weaker ones are also on the first screen)."""
    usage = [
        "#### Budget",
        budget_table(state, limits),
        "#### Tokens per turn",
        turn_table(state, max_rows),
        totals_line(state),
    ]
    drawn = chart(state, limits)
    if drawn:
        usage += ["#### Effective tokens per turn", drawn]
    usage.append(weights_note(state))
    notices = delivered_notices(state)
    blocks = [
        details("Tokens, budgets and cost", "\n\n".join(usage)),
        details(f"Steering notices ({len(notices)})", notices_table(state)),
        details(f"Context provenance ({len(state.record.provenance)})", provenance_table(state, max_rows)),
    ]
    if state.record.security_notes:
        blocks.append(details("Agent access", "\n".join(f"- {n.text}" for n in state.record.security_notes)))
    return blocks
