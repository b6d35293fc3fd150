"""The CLI's pretty mode: stderr for people instead of JSONL.

``aw-harness --format pretty`` (or ``auto``, the default, when stderr is a terminal) wraps stderr
in ``PrettyStream``: the run's JSONL records become a few words each (a rule per turn, warnings,
steering and budget notices, retries, the end of the run), and the records people do not need
(message, request and tool records, which the readable log covers) are left out; every other
line (the readable log, the per-turn line, ``aw-harness:`` diagnostics) passes as it is, made
inert (``ai/inert_line.one_line``: a terminal escape sequence or control character that reached
stderr is shown escaped, never acted on).
``--format jsonl`` (and ``auto`` when stderr is not a terminal) keeps the JSONL stream as it is.

Thread-safe: the cancel watchdog may write while the run writes, so lines are assembled and
written under a lock.
"""

from __future__ import annotations

from typing import Any, Literal, TextIO

from aw_action.ai.inert_line import one_line
from aw_action.sinks.line_stream import LineStream
from aw_action.sinks.record_text import annotation_for, describe, parse_record

Format = Literal["auto", "pretty", "jsonl"]
FORMATS: tuple[str, ...] = ("auto", "pretty", "jsonl")
QUIET_EVENTS = frozenset(
    {
        "agent_start",
        "agent_end",
        "message_start",
        "message_end",
        "request_end",
        "tool_start",
        "tool_end",
        "turn_end",
        "session_end",
        "error",
    }
)
"""Records the pretty mode leaves out: the readable log and the per-turn line say it better, and
the run's closing line (``sinks/closing.py``) says how it ended, and why, once."""


def wants_pretty(fmt: str, stream: TextIO) -> bool:
    """``pretty``, or ``auto`` with a terminal on ``stream``."""
    if fmt == "pretty":
        return True
    if fmt != "auto":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def render(record: dict[str, Any]) -> str | None:
    """One record as a line for people, or None to leave it out."""
    event = str(record["event"])
    if event in QUIET_EVENTS:
        return None
    if event == "session_start":
        session = str(record.get("session_id") or "")[:8]
        return f"aw-harness: session {session} started · model {record.get('model', '?')}"
    if event == "turn_start":
        return f"── Turn {record.get('turn', '?')} " + "─" * 40
    note = annotation_for(record)
    if note is not None:
        return f"{note[0]}: {note[1]}"
    return f"aw-harness: {event}: {describe(record)}"


class PrettyStream(LineStream):
    """A text stream that turns JSONL records into ``render``'s lines on the way to ``out``."""

    def isatty(self) -> bool:
        try:
            return self._out.isatty()
        except (AttributeError, ValueError, OSError):
            return False

    def _line(self, line: str) -> None:
        record = parse_record(line)
        if record is None:
            self._emit(one_line(line))
            return
        text = render(record)
        if text is not None:
            self._emit(one_line(text))

    def _emit(self, line: str) -> None:
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (OSError, ValueError):
            pass
