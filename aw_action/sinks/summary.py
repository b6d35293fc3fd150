"""The Markdown step summary appended to ``$GITHUB_STEP_SUMMARY`` (spec §8.5.3, §11.2.2, §11.4).

The first screen tells the story (``render_run_summary``):

1. the conclusion and why, in a heading (``run/explain.py``: one explanation per stop reason);
2. cost and time in people's units (``in 26 s · $0.34 · 12 turns · 5 tool calls (1 failed)``);
3. where the records are (``sinks/summary_links.py``: the action adds the artifact's link);
4. an action input that was ignored because no input has its name (``max-turn``), with the
   input it probably meant;
5. why, with the figures and the fix: a callout for a failure or a warning, a sentence otherwise
   (a replay: its verdict, ``Replayed the same`` or ``Diverged at turn N, call M``, and the diff);
6. a degraded-mode notice when part of the record may be incomplete (spec §11.4);
7. the answer, rendered (``sinks/answer.py``), or the structured output, or on a schema failure
   the model's last answer; the tool calls with ✅/❌, duration and a failure's status
   (``sinks/summary_story.py``);
8. what the agent could reach, only where it is weaker than asked or than the defaults
   (``AccessNote.weaker``), and the sections built-ins add (safe outputs, a workflow's steps);
9. collapsed, how to replay the run locally: in the action only once its artifact is uploaded.

Below, collapsed: tokens per turn, the budgets, the chart, the weights, steering notices,
context provenance and the agent's access in full (``sinks/summary_details.py``). A run that
could not start gets ``render_failure_summary``: the same heading and callout, and no session.

``render_run_summary`` never fails on missing data. ``append_step_summary`` keeps the file under
GitHub's 1 MiB limit: it re-renders with fewer table rows until the text fits, then cuts as a
last resort. Every string passes through the run's redactor before it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from aw_action.agent.events import AnyMessage
from aw_action.run.explain import explain
from aw_action.run.explanation import Explanation
from aw_action.run.record import AccessNote, Reporting
from aw_action.run.redact import Redactor
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks import markdown as md
from aw_action.sinks.closing import icon, run_facts
from aw_action.sinks.replay_record import replay_hint
from aw_action.sinks.summary_details import details_sections
from aw_action.sinks.summary_links import TRANSCRIPT, records_line, replay_placeholder
from aw_action.sinks.summary_story import (
    ToolCallLine,
    answer_section,
    calls_section,
    failed_answer_section,
    structured_section,
    tool_calls,
)

STEP_SUMMARY_LIMIT = 1024 * 1024
"""GitHub rejects a step summary file larger than 1 MiB."""
ROW_STEPS: tuple[int | None, ...] = (None, 200, 50, 10, 2)
CALLOUTS = {"warning": "warning", "error": "caution"}
MAX_WORKFLOW_CHARS = 100
"""The header shows at most this much of a workflow's name (the first screen stays a screen)."""


def heading(conclusion: str, explanation: Explanation) -> str:
    return f"## {icon(conclusion, explanation.level)} {conclusion.capitalize()} · {md.escape(explanation.title)}"


def workflow_named(reporting: Reporting) -> list[str]:
    """The header's workflow, bold and inert, when the entry point knows it."""
    workflow = reporting.workflow
    return [f"**{md.escape(workflow[:MAX_WORKFLOW_CHARS])}**"] if workflow else []


def models_used(state: RunState) -> str:
    """The run's model, and each model it switched to with the turn it took over from:
    ```a` → `b` from turn 3``."""
    named = [md.code(state.model)]
    named += [f"{md.code(c.to_model)} from turn {c.turn}" for c in state.ledger.model_changes]
    return " → ".join(named)


def stats_line(state: RunState, result: RunResult) -> str:
    """``**workflow** · in 26 s · $0.34 · 12 turns · 5 tool calls (1 failed) · `model```, and for
    anything but a success the stop reason and exit code (what a script branches on). The
    workflow and the model(s) are the header's (spec §8.5.3)."""
    parts = [*workflow_named(state.record.reporting), md.escape(run_facts(state)), models_used(state)]
    if state.record.phase:
        parts.append(f"gh-aw phase {md.code(state.record.phase)}")
    if result.stop_reason != "completed":
        parts.append(f"stop reason {md.code(result.stop_reason)} (exit {result.exit_code})")
    return " · ".join(parts)


def why_block(explanation: Explanation) -> str:
    """A callout for a warning or an error (why, then the fix); a plain sentence otherwise."""
    why = md.words(explanation.why)
    fix = f"**Fix:** {md.words(explanation.fix)}" if explanation.fix else ""
    callout = CALLOUTS.get(explanation.level)
    if callout is None:
        return "\n\n".join(p for p in (why, fix) if p)
    return md.alert(callout, [why, *([fix] if fix else [])])


def unknown_inputs_block(reporting: Reporting) -> list[str]:
    """A misspelt ``with:`` key, on the first screen: it was ignored, so what the run did (or why
    it could not start) may follow from it. Each named with the input it probably meant."""
    ignored = reporting.ignored_inputs
    if not ignored:
        return []
    lines = []
    for each in ignored:
        said = f"{md.code(each.spelt)} ({md.code(each.variable)}) is not an input of this action, so it was ignored"
        meant = f"; did you mean {md.code(each.likely)}?" if each.likely else "; `aw-harness action --help` lists them."
        lines.append(f"- {said}{meant}")
    head = "**Ignored input:**" if len(ignored) == 1 else f"**{len(ignored)} ignored inputs:**"
    fix = f"**Fix:** spell {'it' if len(ignored) == 1 else 'each'} as action.yml does in the step's `with:`."
    return [md.alert("warning", [head, *lines, "", fix])]


def weaker_access(notes: Sequence[AccessNote]) -> str:
    """The "Agent access" note on the first screen: only its lines that are weaker than the user
    asked for or than the defaults; "" when none is (every line is in the collapsed part)."""
    weaker = [n.text for n in notes if n.weaker]
    if not weaker:
        return ""
    return md.alert(
        "warning", ["**Agent access, weaker than asked or than the defaults:**", *(f"- {n}" for n in weaker)]
    )


def replay_block(state: RunState) -> str:
    """How to replay the run locally, collapsed: in the action the placeholder the upload turns
    into the commands (``summary_links.amend_replay_line``), none when nothing will be uploaded;
    on the command line in a GitHub job the commands, for once the job uploads the records."""
    commands = state.record.replay_commands
    reporting = state.record.reporting
    if commands is None:
        return ""
    if reporting.audience == "action":
        return replay_placeholder(reporting) if reporting.artifact else ""
    return replay_hint(commands, None)


def _degraded(state: RunState) -> str:
    lines = ["**Degraded mode.** Part of this run's record may be incomplete:"]
    lines += [f"- **{d.subsystem}**: {d.detail}. _Fix:_ {d.hint}" for d in state.journal.degraded]
    return "\n".join(["> [!WARNING]", *(f"> {' '.join(line.split())}" for line in lines)])


def _records_folder(state: RunState) -> Path | None:
    return next((p.parent for p in state.record.files if p.name == TRANSCRIPT), None)


def _what_it_said(state: RunState, result: RunResult) -> list[str]:
    """The answer, or the structured output, or the answer that failed the schema."""
    checked = state.record.structured_output
    if checked is not None and checked.valid:
        return [structured_section(checked.value, checked.corrections)]
    if result.stop_reason == "invalid_output":
        return [failed_answer_section(state.record.last_answer)]
    return [answer_section(state.record.final_message)]


def render_run_summary(result: RunResult, max_rows: int | None = None, *, calls: Sequence[ToolCallLine] = ()) -> str:
    """The run's summary (module docstring); ``result.state`` must be set. ``calls``: the tool
    calls (``summary_story.tool_calls`` of the session's messages)."""
    state = result.state
    assert state is not None, "a run summary needs the run's state"
    reporting = state.record.reporting
    explanation = explain(result, reporting.audience)
    verdict = state.record.replay_verdict
    parts = [
        heading(verdict.conclusion if verdict is not None else result.conclusion, explanation),
        stats_line(state, result),
        records_line(reporting, _records_folder(state)),
        *unknown_inputs_block(reporting),
        why_block(explanation),
    ]
    if verdict is not None and verdict.diff:
        parts.append(md.code_block(verdict.diff, "diff"))
    if state.journal.degraded:
        parts.append(_degraded(state))
    parts += _what_it_said(state, result)
    parts.append(calls_section(calls))
    parts.append(weaker_access(state.record.security_notes))
    parts += state.record.summary_sections
    parts.append(replay_block(state))
    parts += details_sections(state, state.record.limits, max_rows)
    return "\n\n".join(p for p in parts if p) + "\n"


def render_failure_summary(result: RunResult, reporting: Reporting, folder: Path | None = None) -> str:
    """The summary of a run that could not start (exit 2): the heading and the callout."""
    explanation = explain(result, reporting.audience)
    facts = [*workflow_named(reporting), md.code(result.model)]
    parts = [
        heading(result.conclusion, explanation),
        f"{' · '.join(facts)} · stop reason {md.code(result.stop_reason)} (exit {result.exit_code}) · "
        "no agent session was created and no model request was made",
        records_line(reporting, folder, session=False) if reporting.artifact else "",
        *unknown_inputs_block(reporting),
        why_block(explanation),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


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


def write_run_summary(path: Path, result: RunResult, messages: Sequence[AnyMessage], redactor: Redactor) -> None:
    """Append the run's summary (``render_run_summary``, the tool calls from ``messages``) to
    ``path``, within the limit. Raises ``OSError`` on I/O failure."""
    state = result.state
    assert state is not None
    calls = tool_calls(messages, state.ledger.durations_ms)
    append_step_summary(path, lambda rows: render_run_summary(result, rows, calls=calls), redactor)
    state.record.summary_written = True
