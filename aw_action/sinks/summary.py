"""The Markdown step summary appended to ``$GITHUB_STEP_SUMMARY`` (spec §8.5.3, §11.2.2, §11.4).

``render_run_summary`` reads the run's facts (``RunState``) and never fails on missing data
(unknown cost reads "unknown", no turns gives an empty table). ``append_step_summary`` keeps the
file under GitHub's 1 MiB limit: it re-renders with fewer table rows until the text fits, then
cuts as a last resort. Every string passes through the run's redactor before it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from aw_action.agent.events import AnyMessage
from aw_action.run.budget_kinds import BUDGET_KINDS, KINDS_BY_NAME, BudgetKind
from aw_action.run.effective_tokens import base_weighted_tokens
from aw_action.run.redact import Redactor
from aw_action.run.result import Outcome, RunResult
from aw_action.run.state import RunState
from aw_action.sinks import markdown as md
from aw_action.sinks.mermaid import token_chart
from aw_action.sinks.summary_story import agent_commands, commands_section, final_message_section

STEP_SUMMARY_LIMIT = 1024 * 1024
"""GitHub rejects a step summary file larger than 1 MiB."""
ROW_STEPS: tuple[int | None, ...] = (None, 200, 50, 10, 2)


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


def _turn_table(state: RunState, max_rows: int | None) -> str:
    rows = []
    for t in state.ledger.turns:
        ended = _offset_ms(state.record.started_at, t.ended_at)
        rows.append(
            [
                str(t.turn),
                md.integer(t.usage.input + t.usage.cache_read + t.usage.cache_write),
                md.integer(t.usage.output + t.usage.reasoning),
                md.integer(t.cumulative_tokens),
                md.integer(t.cumulative_effective_tokens),
                md.usd(t.cumulative_cost_usd),
                md.duration(ended),
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
            f"**{md.duration(state.elapsed_ms)}**",
        ]
    )
    header = ["Turn", "Input Tokens", "Output Tokens", "Cumulative", "Cumulative Effective", "Est. Cost", "Elapsed"]
    return md.table(header, rows, "rrrrrrr")


def _weights_note(state: RunState) -> str:
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


def _offset_ms(start: datetime, iso: str) -> float | None:
    try:
        return (datetime.fromisoformat(iso) - start).total_seconds() * 1000
    except ValueError:
        return None


def _uncounted_note(state: RunState) -> str:
    """Tokens spent by requests of a turn that never completed (an abort discards that turn)."""
    completed = state.ledger.turns[-1].cumulative_tokens if state.ledger.turns else 0
    extra = state.ledger.totals.total - completed
    if extra <= 0:
        return ""
    return f"\n\nThe totals include {md.integer(extra)} tokens of requests from a turn that did not complete."


def _budget_table(state: RunState, limits: Mapping[str, float]) -> str:
    rows = []
    for kind in BUDGET_KINDS:
        limit = limits.get(kind.name)
        if limit is None and not kind.always_shown:
            continue
        value = kind.used(state)
        rows.append(
            [
                kind.label,
                _amount(kind, value),
                _amount(kind, limit) if limit else "no limit",
                md.percent(value, limit) if value is not None else "–",
            ]
        )
    return md.table(["Budget", "Used", "Limit", "Used %"], rows, "lrrr")


def _notices(state: RunState) -> str:
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


def _provenance(state: RunState, max_rows: int | None) -> str:
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


def _amount(kind: BudgetKind, value: Any) -> str:
    """A budget figure for people: whole units, or the kind's decimals (credits: 2)."""
    if not isinstance(value, int | float):
        return "–"
    return f"{value:,.{kind.decimals}f}" if kind.decimals else md.integer(value)


def _why_stopped(info: Mapping[str, Any], kind: BudgetKind) -> str:
    trigger = info.get("trigger")
    if trigger == "next_request":
        worst = _amount(kind, info.get("next_request"))
        return (
            f"The next request was not sent: at its worst case ({worst} for a prompt of about "
            f"{md.integer(info.get('input_tokens'))} tokens, nothing read from a cache, and a minimal answer) "
            "it could have passed the limit. Every turn so far completed."
        )
    if trigger == "answer_cut":
        return (
            f"The last answer was cut at {md.integer(info.get('max_tokens'))} tokens, all the budget still paid "
            "for, and discarded (no tool of it ran). The turns before it completed."
        )
    if trigger == "critical_percent":
        return (
            f"No request starts once {info.get('critical_percent', 100):g}% of the limit is used; the turn that "
            "reached it completed."
        )
    return "Turns completed before the limit are kept."


def _budget_exhausted(state: RunState, limits: Mapping[str, float]) -> str:
    info = state.journal.budget_exceeded or {}
    kind = KINDS_BY_NAME.get(str(info.get("budget") or "effective_tokens"), KINDS_BY_NAME["effective_tokens"])
    used = info.get("used", kind.used(state))
    limit = info.get("limit", limits.get(kind.name))
    label = kind.label
    if info.get("reason") == "external_limit":
        stated = f": {used:,.{kind.decimals}f} used of {limit:,.{kind.decimals}f}" if used and limit else ""
        return md.alert(
            "caution",
            [
                f"**Budget exhausted.** AWF's api-proxy refused a request: the run's {label.lower()} "
                f"budget is spent{stated} (the proxy's own accounting).",
                "Turns completed before the refusal are kept. Raise the workflow's budget "
                "(`max-ai-credits`, `GH_AW_MAX_AI_CREDITS`) or narrow the task.",
            ],
        )
    return md.alert(
        "caution",
        [
            f"**Budget exhausted.** The session was stopped by its {label.lower()} budget (hard limit): "
            f"{_amount(kind, used)} used of {_amount(kind, limit)} ({md.percent(float(used or 0), limit)}).",
            _why_stopped(info, kind) + " Raise the limit in `harness.budget` or narrow the task "
            "(docs/budgets-steering-repair.md: what a budget buys).",
        ],
    )


def _degraded(state: RunState) -> str:
    lines = ["**Degraded mode.** Part of this run's record may be incomplete:"]
    lines += [f"- **{d.subsystem}**: {d.detail}. _Fix:_ {d.hint}" for d in state.journal.degraded]
    return "\n".join(["> [!WARNING]", *(f"> {' '.join(line.split())}" for line in lines)])


def render_run_summary(
    state: RunState,
    outcome: Outcome,
    limits: Mapping[str, float],
    max_rows: int | None = None,
    *,
    error: str | None = None,
    commands: Sequence[str] = (),
) -> str:
    """The run's summary; ``error`` (the result's) and ``commands`` (``summary_story``) are
    shown when given, the final message whenever the run has one."""
    parts = [
        f"## AW Harness Run — {md.code(state.model)}",
        f"**Conclusion:** {md.cell(outcome.conclusion)} · **Stop reason:** {md.code(outcome.stop_reason)} · "
        f"**Exit code:** {outcome.exit_code} · **Turns:** {len(state.ledger.turns)} · "
        f"**Elapsed:** {md.duration(state.elapsed_ms)}"
        + (f" · **gh-aw phase:** {md.code(state.record.phase)}" if state.record.phase else ""),
    ]
    if state.journal.budget_exceeded is not None:
        parts.append(_budget_exhausted(state, limits))
    elif error and outcome.exit_code != 0 and error != outcome.stop_reason:
        parts.append(md.alert("caution", [f"**The run failed.** {error}"]))
    if state.journal.degraded:
        parts.append(_degraded(state))
    if state.record.security_notes:
        parts.append(md.alert("note", ["**Agent access:**", *(f"- {n}" for n in state.record.security_notes)]))
    parts += [
        section
        for section in (final_message_section(state.record.final_message), commands_section(commands))
        if section
    ]
    parts += [
        "### Token Consumption",
        _turn_table(state, max_rows),
        f"Effective tokens (weighted): **{md.integer(state.ledger.effective_tokens)}** · Raw tokens: "
        f"**{md.integer(state.ledger.totals.total)}** · Estimated cost: "
        f"**{md.usd(state.ledger.cost_usd)}** · AI credits: **"
        f"{'unknown' if state.ledger.ai_credits is None else f'{state.ledger.ai_credits:,.2f}'}**"
        + _uncounted_note(state),
        _weights_note(state),
        "### Budget",
        _budget_table(state, limits),
    ]
    chart = token_chart([t.cumulative_effective_tokens for t in state.ledger.turns], limits.get("effective_tokens"))
    if chart:
        caption = "First line: cumulative effective tokens after each turn"
        limit = limits.get("effective_tokens")
        caption += f"; second line: the budget ({md.integer(limit)})." if limit else " (no effective-token budget)."
        parts += ["### Effective Tokens per Turn", chart, caption]
    parts += ["### Steering Notices", _notices(state), "### Context Provenance", _provenance(state, max_rows)]
    parts += state.record.summary_sections
    return "\n\n".join(parts) + "\n"


def render_failure_summary(model: str, message: str, hint: str) -> str:
    return (
        "\n\n".join(
            [
                f"## AW Harness Run — {md.code(model)}",
                md.alert("caution", [f"**The run could not start.** {message}", f"**How to fix:** {hint}"]),
                "No agent session was created and no model request was made.",
            ]
        )
        + "\n"
    )


def fit(render: Callable[[int | None], str], budget: int) -> str:
    """The richest rendering whose UTF-8 size is within ``budget`` bytes."""
    text = ""
    for rows in ROW_STEPS:
        text = render(rows)
        if len(text.encode("utf-8")) <= budget:
            return text
    note = "\n\n_Summary cut to stay under GitHub's 1 MiB step-summary limit._\n"
    room = max(budget - len(note.encode("utf-8")), 0)
    return text.encode("utf-8")[:room].decode("utf-8", "ignore") + note if room else ""


def append_step_summary(path: Path, render: Callable[[int | None], str], redactor: Redactor) -> int:
    """Append the summary; returns the bytes written. Raises ``OSError`` on I/O failure."""
    existing = path.stat().st_size if path.exists() else 0
    budget = STEP_SUMMARY_LIMIT - existing - 2
    text = fit(lambda rows: redactor.text(render(rows)), budget)
    if not text:
        return 0
    prefix = "\n" if existing else ""
    with path.open("a", encoding="utf-8") as fh:
        fh.write(prefix + text)
    return len((prefix + text).encode("utf-8"))


def write_run_summary(
    path: Path, state: RunState, result: RunResult, messages: Sequence[AnyMessage], redactor: Redactor
) -> None:
    """Append the run's summary (``render_run_summary``, the agent's commands from ``messages``)
    to ``path``, within the limit. Raises ``OSError`` on I/O failure."""
    commands = agent_commands(messages)

    def render(rows: int | None) -> str:
        return render_run_summary(
            state, result.outcome, state.record.limits, rows, error=result.error, commands=commands
        )

    append_step_summary(path, render, redactor)
    state.record.summary_written = True
