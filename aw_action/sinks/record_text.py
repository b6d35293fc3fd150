"""The run's JSONL records in words: which records deserve a warning, and how one reads as a line (each
made inert: ``ai/inert_line.one_line``). Shared by the action's step log (``github/turns.py``:
annotations) and the CLI's pretty mode (``sinks/pretty.py``)."""

from __future__ import annotations

import json
from typing import Any

from aw_action.ai.inert_line import one_line, tool_label

_NOT_DETAILS = frozenset({"event", "ts", "message"})


def parse_record(line: str) -> dict[str, Any] | None:
    """The JSONL record on this line, or None for any other text."""
    if not line.startswith("{"):
        return None
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, dict) and isinstance(value.get("event"), str) else None


def annotation_for(record: dict[str, Any]) -> tuple[str, str] | None:
    """``(title, message)`` for records that deserve a warning annotation, else None."""
    event = str(record["event"])
    if event == "budget_exceeded":
        what = str(record.get("budget", "budget")).replace("_", " ")
        used, limit = record.get("used"), record.get("limit")
        amount = f": {_figure(used)} of {_figure(limit)} used" if used is not None and limit is not None else ""
        forced = "the run stops" if record.get("forced_termination", True) else "the run continues"
        return "aw-harness: budget stop", f"stopped by the {what} limit{amount}; {forced}"
    if event == "steering" or event.endswith("_steering"):
        kind, threshold = record.get("type", "resource"), record.get("threshold")
        at = f" at {threshold}%" if threshold is not None else ""
        told = one_line(f"{kind} steering notice{at} sent to the agent: {record.get('message') or ''}")
        return "aw-harness: steering", told
    if event in ("warning", "degraded"):
        return f"aw-harness: {event}", describe(record)
    return None


def _figure(value: Any) -> str:
    return (
        f"{value:,.2f}".rstrip("0").rstrip(".")
        if isinstance(value, float)
        else f"{value:,}"
        if isinstance(value, int)
        else str(value)
    )


def describe(record: dict[str, Any]) -> str:
    """The record's ``message``, then its scalar fields as ``key=value``."""
    details = ", ".join(
        f"{key}={tool_label(value) if key == 'tool_name' and isinstance(value, str) else value}"
        for key, value in record.items()
        if key not in _NOT_DETAILS and isinstance(value, str | int | float | bool)
    )
    message = str(record.get("message") or "")
    if message and details:
        return one_line(f"{message} ({details})")
    return one_line(message or details or str(record["event"]))
