"""Append-only JSONL files in the output dir (token usage, unified session, provenance).

Contract: each ``write`` redacts the record, appends one line and flushes, so the file is valid
JSONL if the process dies between two writes. Errors propagate (``OSError``, ``TypeError``):
the caller (observability) turns them into a warning and a degraded notice.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from aw_action.sinks.redact import Redactor


class JsonlFile:
    def __init__(self, path: Path, redactor: Redactor) -> None:
        self.path = path
        self._redactor = redactor
        self._fh: IO[str] | None = None
        self.lines = 0

    def write(self, record: dict[str, Any]) -> None:
        text = json.dumps(self._redactor.obj(record), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("w", encoding="utf-8")
        self._fh.write(text + "\n")
        self._fh.flush()
        self.lines += 1

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
