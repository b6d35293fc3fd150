"""The JSONL event stream on stderr: one JSON object a line, ``event`` and ``ts`` keys.

Every line passes through the redactor, then is made inert (``ai/inert_line.py``: a record's
characters a terminal or the runner would act on as JSON escapes, a human line as ``one_line``).
Diagnostics that are not events (the per-turn human line, one-line errors) go through ``line`` so
that stderr has a single, ordered writer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

from aw_action.ai.inert_line import inert_json, one_line
from aw_action.run import record_table
from aw_action.run.redact import Redactor
from aw_action.timestamps import utc_iso

EVENTS_FILE = record_table.EVENTS.name
"""The JSONL stream in the output folder, when the action's ``log-format`` is ``file``."""


class JsonlSink:
    def __init__(self, redactor: Redactor, stream: IO[str] | None = None, *, readable: bool = False) -> None:
        self._redactor = redactor
        self._stream = stream
        self.readable = readable
        """People read this stream (the action's step log, the CLI's pretty mode): the readable
        log (``extensions/narration.py``) writes its lines here too."""
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        """Called with every record written (e.g. the GitHub annotations writer)."""

    @property
    def stream(self) -> IO[str]:
        return self._stream or sys.stderr

    def event(self, name: str, **fields: Any) -> dict[str, Any]:
        return self.record(name, fields)

    def record(self, name: str, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Like ``event`` for a fields mapping of any keys (``name`` included); ``event`` and
        ``ts`` are reserved and always the sink's own."""
        rest = {k: v for k, v in fields.items() if k not in ("event", "ts")}
        record: dict[str, Any] = {"event": name, **rest, "ts": utc_iso()}
        record = self._redactor.obj(record)
        self._write(inert_json(json.dumps(record, ensure_ascii=False, default=str)))
        for listener in self.listeners:
            listener(record)
        return record

    def line(self, text: str) -> None:
        """One line for people: redacted, then made inert (``one_line``: a caller's foreign text
        can neither start a line of its own nor act on a terminal or the runner)."""
        self._write(one_line(self._redactor.text(text)))

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            pass  # stderr closed: nothing left to tell
