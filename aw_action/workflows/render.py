"""How a workflow run reads in the step summary (Markdown) and in the audit record (plain data).

Pure functions of the run state. The Markdown follows the step summary's rules: table cells stay
on one line with pipes escaped, and text written by the model (summaries, the artifact under
review) is shown inside a code fence longer than any backtick run it contains, so it cannot
break out of its block.
"""

from __future__ import annotations

from typing import Any

from aw_action.workflows.state import RunState

ARTIFACT_PREVIEW_CHARS = 60_000


def _cell(value: object) -> str:
    return " ".join(str(value).split()).replace("\\", "\\\\").replace("|", "\\|")


def _fence(text: str, info: str = "") -> str:
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _pending(state: RunState) -> dict[str, Any] | None:
    gate = state.pending_gate
    if gate is None:
        return None
    return {"step": gate.step, "outcome": gate.outcome, "artifact_chars": len(gate.artifact)}


def audit_record(state: RunState) -> dict[str, Any]:
    """The run's path, outcomes, visits and pauses as JSON-ready data."""
    return {
        "workflow": state.workflow_id,
        "run_id": state.run_id,
        "status": state.status,
        "current_step": state.current_step,
        "visits": dict(state.visits),
        "path": [
            {"step": r.step, "visit": r.visit, "outcome": r.outcome, "next": r.target, "decided_by": r.decided_by}
            for r in state.history
        ],
        "pauses": [{"step": e.step, "visit": e.visit, "reason": e.reason} for e in state.trail if e.event == "paused"],
        "pause": state.pause.model_dump() if state.pause else None,
        "pending_review": _pending(state),
        "events": [e.model_dump(exclude_defaults=True) for e in state.trail],
    }


_EVENT_TEXT = {
    "completed": "completed",
    "submitted": "submitted for review",
    "approved": "approved",
    "changes_requested": "changes requested",
    "paused": "paused",
    "resumed": "resumed",
    "restarted": "restarted",
}


def summary_markdown(state: RunState, resume_hint: str = "") -> str:
    """A step-summary section: status, the event table, visits, and the pending review."""
    status = {"running": "running", "paused": "paused", "done": "done"}[state.status]
    lines = [f"### Workflow `{_cell(state.workflow_id)}`: {status}", ""]
    if state.pause is not None:
        lines += [f"> **Paused** at step `{_cell(state.pause.step)}`: {_cell(state.pause.reason)}", ""]
    if state.trail:
        lines += ["| # | step | visit | event | outcome | next | note |", "| --: | --- | --: | --- | --- | --- | --- |"]
        for i, e in enumerate(state.trail, 1):
            row = [i, e.step, e.visit, _EVENT_TEXT[e.event], e.outcome, e.target, e.reason]
            lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
        lines.append("")
    visits = ", ".join(f"`{_cell(step)}` × {count}" for step, count in state.visits.items())
    lines += [f"Visits: {visits}", ""]
    gate = state.pending_gate
    if gate is not None:
        artifact = gate.artifact
        if len(artifact) > ARTIFACT_PREVIEW_CHARS:
            artifact = (
                artifact[:ARTIFACT_PREVIEW_CHARS]
                + f"\n… [{len(gate.artifact) - ARTIFACT_PREVIEW_CHARS} more characters]"
            )
        lines += [
            f"#### Waiting for review: step `{_cell(gate.step)}`",
            "",
            "<details open><summary>Artifact submitted for review</summary>",
            "",
            _fence(artifact, "markdown"),
            "",
            "</details>",
            "",
        ]
        if resume_hint:
            lines += [resume_hint, ""]
    return "\n".join(lines)
