"""A text stream that hands each complete line to its subclass: the base of the streams that
stand in for stderr (the action's step log, the CLI's pretty log).

Writers (the harness's sinks, an extension's print, the cancel watchdog's last words) send
fragments from several threads; lines are assembled under ``_lock`` (re-entrant, so a subclass may
take it around its own methods) and ``_line`` is called once per complete line, without its
newline. A trailing fragment waits for the rest of its line.
"""

from __future__ import annotations

import contextlib
import io
import threading
from typing import TextIO


class LineStream(io.TextIOBase):
    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._lock = threading.RLock()
        self._partial = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._lock:
            self._partial += text
            *lines, self._partial = self._partial.split("\n")
            for line in lines:
                self._line(line)
        return len(text)

    def flush(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._out.flush()

    def _line(self, line: str) -> None:
        raise NotImplementedError
