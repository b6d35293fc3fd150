"""Reading a file by lines in bounded memory: skip, take a window, count the rest.

``LineReader`` wraps a descriptor and reads it in ``CHUNK`` pieces. Skipping and counting work
on whole chunks (``bytes.count``), so a file of millions of lines costs no per-line Python work
outside the window. A line is never held whole: ``next_line(keep)`` returns at most ``keep``
bytes of it plus its full length, so a 2 GB line (or a sparse file's hole) costs one chunk of
memory. Every loop checks ``stop()`` (the tool's abort signal) between chunks, so a long scan
ends promptly at the deadline.

Lines are counted as an editor does: a final newline ends the last line rather than starting an
empty one.
"""

from __future__ import annotations

import os
from collections.abc import Callable

CHUNK = 1024 * 1024


class Stopped(Exception):
    """``stop()`` returned True during a read."""


class LineReader:
    def __init__(self, fd: int, stop: Callable[[], bool] = lambda: False) -> None:
        self._fd = fd
        self._stop = stop
        self._buf = b""
        self._pos = 0
        self._eof = False
        self.bytes_read = 0
        self.at_line_start = True
        """Whether the reader sits at the start of a line (nothing of the current line consumed)."""

    def _fill(self) -> bool:
        """Make ``_buf[_pos:]`` non-empty; False at end of file."""
        while self._pos >= len(self._buf):
            if self._eof:
                return False
            if self._stop():
                raise Stopped
            data = os.read(self._fd, CHUNK)
            if not data:
                self._eof = True
                return False
            self.bytes_read += len(data)
            self._buf, self._pos = data, 0
        return True

    def head(self, size: int) -> bytes:
        """The first ``size`` bytes of the file (or fewer), without consuming them."""
        while len(self._buf) - self._pos < size and not self._eof:
            if self._stop():
                raise Stopped
            data = os.read(self._fd, CHUNK)
            if not data:
                self._eof = True
                break
            self.bytes_read += len(data)
            self._buf = self._buf[self._pos :] + data
            self._pos = 0
        return self._buf[self._pos : self._pos + size]

    def skip_lines(self, n: int) -> int:
        """Skip ``n`` whole lines; returns how many existed (fewer at end of file)."""
        skipped = 0
        while skipped < n and self._fill():
            newlines = self._buf.count(b"\n", self._pos)
            if skipped + newlines < n:
                skipped += newlines
                self._pos = len(self._buf)
                self.at_line_start = self._buf[-1:] == b"\n"
                continue
            for _ in range(n - skipped):
                self._pos = self._buf.index(b"\n", self._pos) + 1
            skipped = n
            self.at_line_start = True
        if skipped < n and not self.at_line_start:
            skipped += 1  # a last line without a final newline
            self.at_line_start = True
        return skipped

    def next_line(self, keep: int, scan: int) -> tuple[bytes, int, bool] | None:
        """The next line as ``(its first keep bytes, its length, complete)``; None at end of
        file. At most ``scan`` bytes of one line are read: past that ``complete`` is False,
        ``length`` is a lower bound and the reader stays inside the line (read nothing more)."""
        if not self._fill():
            return None
        kept = bytearray()
        length = 0
        while True:
            end = self._buf.find(b"\n", self._pos)
            stop = len(self._buf) if end < 0 else end
            if len(kept) < keep:
                kept += self._buf[self._pos : min(stop, self._pos + keep - len(kept))]
            length += stop - self._pos
            if end >= 0:
                self._pos = end + 1
                break
            self._pos = stop
            if length >= scan:
                self.at_line_start = False
                return bytes(kept), length, False
            if not self._fill():
                break
        self.at_line_start = True
        return bytes(kept), length, True

    def count_lines(self, budget: int) -> tuple[int, bool]:
        """Count the remaining lines reading at most about ``budget`` bytes; returns
        ``(count, complete)`` where ``complete`` says the end of file was reached."""
        count = 0
        start = self.bytes_read - (len(self._buf) - self._pos)
        last = b"\n"
        while self._fill():
            count += self._buf.count(b"\n", self._pos)
            last = self._buf[-1:]
            self._pos = len(self._buf)
            if self.bytes_read - start >= budget and not self._eof:
                return count + (last != b"\n"), False
        return count + (last != b"\n"), True
