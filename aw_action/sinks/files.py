"""Append-only JSONL files in the output dir (token usage, unified session, provenance).

Contract: each ``write`` redacts the record and appends it as one line with a single
``os.write`` of the whole line (no user-space buffer that could split it over two system calls),
so the file is valid JSONL if the process dies between or during writes. A write that fails
part-way (disk full, file size limit) is cut back to the last whole line before the error
propagates. Errors propagate (``OSError``, ``TypeError``, ``ValueError``): the caller
(observability) turns them into a warning and a degraded notice. The file is created (truncated)
on the first write; a write after ``close`` raises ``ValueError`` rather than starting it over.
Each complete line is reported to ``records`` (the run's ``RecordLedger``) once it is on disk; a
cut-back restores the file to exactly what was reported. The file is opened through the ledger's
held output dir (``record_guard.open_record``), never through a symbolic link.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from aw_action.run.redact import Redactor
from aw_action.security.records.record_guard import RecordWrites, open_record


class JsonlFile:
    def __init__(self, path: Path, redactor: Redactor, records: RecordWrites | None = None) -> None:
        self.path = path
        self._redactor = redactor
        self._records = records
        self._fd: int | None = None
        self._size = 0
        self.closed = False
        self.lines = 0

    def ensure(self) -> None:
        """Create the file (empty) when no line was written yet: it exists even without records."""
        if self.closed:
            raise ValueError(f"{self.path.name} is already closed")
        if self._fd is None:
            self._fd = open_record(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, self._records)
            if self._records is not None:
                self._records.wrote(self.path, b"")

    def write(self, record: dict[str, Any]) -> None:
        if self.closed:
            raise ValueError(f"{self.path.name} is already closed")
        text = json.dumps(self._redactor.obj(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        data = (text + "\n").encode("utf-8")
        self.ensure()
        fd = self._fd
        assert fd is not None, "ensure() opened it"
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, self._size)
            raise
        self._size += len(data)
        self.lines += 1
        if self._records is not None:
            self._records.wrote(self.path, data)

    def close(self) -> None:
        self.closed = True
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
