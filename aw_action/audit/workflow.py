"""A workflow run in the audit: its path, outcomes, visits and pauses, from the ``harness.workflow``
record the workflow harness writes into the unified session (``workflows.render.audit_record``).

Records may lie: every field is taken only when it has the expected type (strings, whole
numbers), lists are cut at ``MAX_ROWS``, and the text goes through the Markdown builders that
keep table cells on one line.
"""

from __future__ import annotations

from typing import Any

from aw_action.sinks import markdown as md

MAX_ROWS = 1000
PATH_KEYS = {"step": "text", "visit": "int", "outcome": "text", "next": "text", "decided_by": "text"}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _rows(value: Any, keys: dict[str, str]) -> list[dict[str, Any]]:
    """Dict items of ``value`` with ``keys`` (name → ``"text"`` or ``"int"``) of the right type."""
    rows = []
    for item in (value if isinstance(value, list) else [])[:MAX_ROWS]:
        if isinstance(item, dict):
            rows.append({k: (_whole(item.get(k)) if kind == "int" else _text(item.get(k))) for k, kind in keys.items()})
    return rows


def workflow_report(data: Any) -> dict[str, Any] | None:
    """The workflow part of the audit report, or None when the run was not a workflow."""
    if not isinstance(data, dict) or not _text(data.get("workflow")):
        return None
    raw_visits = data.get("visits")
    visits: dict[Any, Any] = raw_visits if isinstance(raw_visits, dict) else {}
    pending = data.get("pending_review")
    return {
        "workflow": _text(data.get("workflow")),
        "run_id": _text(data.get("run_id")),
        "status": _text(data.get("status")),
        "current_step": _text(data.get("current_step")),
        "visits": {str(k): v for k, v in list(visits.items())[:MAX_ROWS] if _whole(v) is not None},
        "path": _rows(data.get("path"), PATH_KEYS),
        "pauses": _rows(data.get("pauses"), {"step": "text", "visit": "int", "reason": "text"}),
        "pending_review": _rows([pending], {"step": "text", "outcome": "text", "artifact_chars": "int"})[0]
        if isinstance(pending, dict)
        else None,
    }


def render_workflow(report: dict[str, Any]) -> str:
    """The audit's ``### Workflow`` section."""
    head = f"### Workflow {md.code(report['workflow'])}: {md.cell(report['status'] or 'unknown')}"
    parts = [head]
    if report["path"]:
        rows = [
            [str(i), md.code(r["step"]), md.integer(r["visit"]), r["outcome"], r["next"], r["decided_by"]]
            for i, r in enumerate(report["path"], 1)
        ]
        parts.append(md.table(["#", "Step", "Visit", "Outcome", "Next", "Decided by"], rows, "rlrlll"))
    else:
        parts.append("_No step completed._")
    visits = ", ".join(f"{md.code(step)} × {count}" for step, count in report["visits"].items())
    parts.append(f"Visits: {visits or '–'}")
    if report["pauses"]:
        lines = [
            f"- {md.code(p['step'])} (visit {md.integer(p['visit'])}): {md.cell(p['reason'])}" for p in report["pauses"]
        ]
        parts.append("Pauses:\n" + "\n".join(lines))
    pending = report["pending_review"]
    if pending:
        parts.append(
            f"Waiting for review: step {md.code(pending['step'])} submitted {md.integer(pending['artifact_chars'])} "
            "characters (the artifact is in the step summary and the checkpoint)."
        )
    return "\n\n".join(parts)
