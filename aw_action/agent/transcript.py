"""The session transcript: ``session.jsonl``, one entry a line, written as it happens.

Format (modelled on Pi's session file): a header ``{"type": "session", "version", "id",
"timestamp", "cwd", "model"}``, then entries with ``id``, ``parentId`` and ``timestamp``:
``message`` (``message``), ``custom`` (``customType``, ``data``), ``compaction`` (``summary``,
``tokensBefore``, ``tokensAfter``), ``repair`` (``action``, ``details``). Each line is flushed on
write, so the file stays valid JSONL if the process dies between two lines. Every line passes
through ``scrub`` (the run's redactor) before it is written, and is valid UTF-8 (a lone
surrogate in a record becomes U+FFFD). When the disk fills up, the file is cut back to its last
whole line and no longer written (``error`` says why); the session goes on. Each line on disk
is reported to ``records`` (the run's ``RecordLedger``); content already in the file when it is
opened (an earlier run's, in the same output dir) is adopted first.
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from aw_action.agent.events import AnyMessage
from aw_action.ai.text import clean_value, is_clean
from aw_action.security.records.record_guard import RecordWrites, open_record
from aw_action.timestamps import utc_iso

FILE_NAME = "session.jsonl"
"""The transcript's name in the output dir."""
Scrub = Callable[[Any], Any]


class Transcript:
    """Append-only JSONL transcript. ``path`` None keeps entries in memory only."""

    def __init__(
        self,
        path: Path | None,
        *,
        session_id: str,
        cwd: str,
        model: str,
        scrub: Scrub | None = None,
        records: RecordWrites | None = None,
    ) -> None:
        self.path = path
        self._records = records
        self.entries: list[dict[str, Any]] = []
        self._scrub: Scrub = scrub or (lambda v: v)
        self._last_id: str | None = None
        self._fh: IO[str] | None = None
        self.error: str | None = None
        """Why the file stopped being written (disk full, ...); entries stay in memory."""
        self._good = 0
        if path is not None:
            fd = open_record(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, records)
            self._fh = os.fdopen(fd, "a", encoding="utf-8")
            self._good = self._fh.tell()
            if records is not None:
                records.adopt(path)
        header = {
            "type": "session",
            "version": 1,
            "id": session_id,
            "timestamp": utc_iso(),
            "cwd": cwd,
            "model": model,
        }
        self._write(header)

    def _write(self, record: dict[str, Any]) -> None:
        record = self._scrub(record)
        self.entries.append(record)
        if self._fh is not None:
            line = json.dumps(record, ensure_ascii=False)
            if not is_clean(line):  # a lone surrogate from an extension's data: never a broken line
                line = json.dumps(clean_value(record), ensure_ascii=False)
            try:
                self._fh.write(line + "\n")
                self._fh.flush()
                self._good = self._fh.tell()
            except OSError as exc:
                self._stop(exc)
                return
            if self._records is not None and self.path is not None:
                self._records.wrote(self.path, (line + "\n").encode("utf-8"))

    def _stop(self, exc: OSError) -> None:
        """The file cannot grow (disk full, ...): cut it back to its last whole line and stop
        writing it, so it stays valid JSONL; the run goes on."""
        self.error = f"{self.path}: {exc.strerror or exc}"
        fh, self._fh = self._fh, None
        if fh is None:
            return
        raw = os.dup(fh.fileno())  # the file as opened: never reached by its path again
        with contextlib.suppress(OSError):
            fh.close()
        with contextlib.suppress(OSError):
            os.ftruncate(raw, self._good)
        os.close(raw)

    def append(self, type_: str, **fields: Any) -> dict[str, Any]:
        entry_id = uuid.uuid4().hex[:8]
        record = {"type": type_, "id": entry_id, "parentId": self._last_id, "timestamp": utc_iso(), **fields}
        self._last_id = entry_id
        self._write(record)
        return record

    def append_message(self, message: AnyMessage) -> None:
        self.append("message", message=message.model_dump(mode="json"))

    def close(self) -> None:
        if self._fh is None:
            return
        try:
            self._fh.close()
            self._fh = None
        except OSError as exc:
            self._stop(exc)
