"""Turns the run's JSONL lines into log structure: one ``::group::`` per turn, annotations for
steering, budget and warning records.

Reads only the redacted lines the harness writes (``{"event": ..., ...}`` records and the human
per-turn line), so it needs no hook into the harness. Layout it produces::

    {"event": "session_start", ...}          (setup and run-level lines: visible)
    ::group::Turn 1                           (opened by the turn_start record)
    {"event": "turn_start", "turn": 1, ...}
    {"event": "tool_end", ...}
    {"event": "turn_end", "turn": 1, ...}
    ::endgroup::                              (closed after the turn_end record)
    > **Turn 1**: 765 in / 46 out raw tokens, ...  (the human line and notices stay visible)
"""

from __future__ import annotations

import json
from typing import Any, Protocol

TEXT_WARNING_PREFIX = "aw-harness: warning: "
_NOT_DETAILS = frozenset({"event", "ts", "message"})


class Annotator(Protocol):
    @property
    def in_group(self) -> bool: ...

    def group(self, title: str) -> None: ...

    def end_group(self) -> None: ...

    def warning(self, message: str, title: str | None = None) -> None: ...


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
        amount = f": {_num(used)} of {_num(limit)}" if used is not None and limit is not None else ""
        forced = "the run was stopped" if record.get("forced_termination", True) else "the run continues"
        return "aw-harness: budget exceeded", f"{what} budget exceeded{amount}; {forced}"
    if event == "steering" or event.endswith("_steering"):
        kind, threshold = record.get("type", "resource"), record.get("threshold")
        at = f" at {threshold}%" if threshold is not None else ""
        return "aw-harness: steering", f"{kind} steering notice{at} sent to the agent: {record.get('message') or ''}"
    if event in ("warning", "degraded"):
        return f"aw-harness: {event}", describe(record)
    return None


def _num(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def describe(record: dict[str, Any]) -> str:
    """The record's ``message``, then its scalar fields as ``key=value``."""
    details = ", ".join(
        f"{key}={value}"
        for key, value in record.items()
        if key not in _NOT_DETAILS and isinstance(value, str | int | float | bool)
    )
    message = str(record.get("message") or "")
    if message and details:
        return f"{message} ({details})"
    return message or details or str(record["event"])


class TurnTracker:
    def __init__(self, log: Annotator) -> None:
        self._log = log
        self.turn = 0

    def before(self, line: str, record: dict[str, Any] | None) -> None:
        """A ``turn_start`` record opens its turn's group (closing any still open)."""
        if record is not None and record["event"] == "turn_start":
            turn = record.get("turn")
            self.turn = turn if isinstance(turn, int) else self.turn + 1
            self._log.group(f"Turn {self.turn}")

    def after(self, line: str, record: dict[str, Any] | None) -> None:
        if record is None:
            if line.startswith(TEXT_WARNING_PREFIX):
                self._log.warning(line[len(TEXT_WARNING_PREFIX) :], title="aw-harness: warning")
            return
        if record["event"] in ("turn_end", "agent_end", "session_end"):
            self._log.end_group()
        note = annotation_for(record)
        if note is not None:
            self._log.warning(note[1], title=note[0])
