"""The run's last line for people: how it ended, in people's units, and why (``run/explain.py``).

- ``run_facts``: ``in 26 s · $0.34 · 12 turns · 5 tool calls (1 failed)`` (plain text; the step
  summary's second line and the progress comment use it too);
- ``closing_head``: ``aw-harness: ✅ success · in 26 s · $0.34 · 12 turns``, with the
  explanation's title for any other end: the action's log ends with it (its annotation carries
  the explanation);
- ``closing_line``: the CLI's last stderr line: the head and, unless the run simply succeeded,
  why and the fix. A run that could not start ends with
  ``aw-harness: error: <what is wrong> Fix: <what to change>`` (the one line that says it).
"""

from __future__ import annotations

from aw_action.run import human
from aw_action.run.explain import explain
from aw_action.run.explanation import Level, plain
from aw_action.run.record import Audience
from aw_action.run.result import RunResult
from aw_action.run.state import RunState

ICONS = {"success": "✅", "failure": "❌", "cancelled": "⏹️", "skipped": "⏭️", "paused": "⏸️"}


def icon(conclusion: str, level: Level) -> str:
    """The mark of a run's end, the same in the summary, the comment and the log: the
    conclusion's, or ⚠️ for a success with something to look at."""
    return "⚠️" if level == "warning" else ICONS.get(conclusion, "❌")


def run_facts(state: RunState) -> str:
    ledger = state.ledger
    failed = ledger.failed_tool_calls
    calls = human.count(ledger.calls_made, "tool call") + (f" ({failed} failed)" if failed else "")
    parts = [
        f"in {human.duration(state.elapsed_ms / 1000)}",
        human.usd(ledger.cost_usd),
        human.count(len(ledger.turns), "turn"),
        calls,
    ]
    return " · ".join(parts)


def closing_head(result: RunResult, audience: Audience = "action") -> str:
    """``aw-harness: ✅ success in 26 s · $0.34 · 12 turns · 5 tool calls``; for anything else
    the explanation's title too (``❌ failure · Time limit reached · in 30 s · ...``); a run
    that could not start has no figures."""
    explanation = explain(result, audience)
    parts = [f"aw-harness: {icon(result.conclusion, explanation.level)} {result.conclusion}"]
    if explanation.level != "notice" or result.conclusion != "success":
        parts.append(explanation.title)
    if result.state is not None and result.exit_code != 2:
        parts.append(run_facts(result.state))
    return " · ".join(parts)


def closing_line(result: RunResult, audience: Audience) -> str:
    explanation = explain(result, audience)
    fix = f" Fix: {plain(explanation.fix)}" if explanation.fix else ""
    if result.exit_code == 2:
        return f"aw-harness: error: {plain(explanation.why)}{fix}"
    head = closing_head(result, audience)
    return head if explanation.level == "notice" else f"{head}. {plain(explanation.why)}{fix}"
