"""Turns the run's JSONL lines into log structure: one ``::group::`` per turn, annotations for
steering and warning records.

Reads only the redacted lines the harness writes (``{"event": ..., ...}`` records and the human
per-turn line), so it needs no hook into the harness. Layout it produces (with the records the
log folds away outside turns, ``github/log.py``)::

    ::group::Records (JSONL)                  (setup records: folded)
    {"event": "session_start", ...}
    ::endgroup::
    ::group::Turn 1                           (opened by the turn_start record)
    {"event": "turn_start", "turn": 1, ...}
      I'll list the files first.              (the readable log, sinks/readable.py: the
    {"event": "tool_start", ...}               assistant's text, each call, a head and tail
      → [1] bash: $ ls                         of its output, heartbeats; always indented,
    {"event": "tool_end", ...}                 so no model text reads as a record)
      ← [1] bash: ok, 12 ms, 3 lines
    {"event": "turn_end", "turn": 1, ...}
    ::endgroup::                              (closed after the turn_end record)
    Turn 1: bash | 765 in / 46 out raw tokens, ...  (the turn line and notices stay visible)

A budget stop gets no annotation here: the action's closing annotation explains the stop, with
its figures and its fix (``run/explain.py``).
"""

from __future__ import annotations

from typing import Any, Protocol

from aw_action.sinks.record_text import annotation_for, describe, parse_record

__all__ = ["TEXT_WARNING_PREFIX", "Annotator", "TurnTracker", "annotation_for", "describe", "parse_record"]

TEXT_WARNING_PREFIX = "aw-harness: warning: "


class Annotator(Protocol):
    @property
    def in_turn(self) -> bool:
        """A turn's group is open (not the log's own records group)."""
        ...

    def group(self, title: str) -> None: ...

    def end_group(self) -> None: ...

    def warning(self, message: str, title: str | None = None) -> None: ...


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
        if record["event"] in ("turn_end", "agent_end", "session_end") and self._log.in_turn:
            self._log.end_group()
        note = annotation_for(record) if record["event"] != "budget_exceeded" else None
        if note is not None:
            self._log.warning(note[1], title=note[0])
