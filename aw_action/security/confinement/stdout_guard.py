"""stdout carries one thing, the result object: everything else printed goes to stderr, redacted.

``reserved_stdout(scrub)`` is a context manager for the CLI's run. Inside it:
- ``sys.stdout`` is a line-buffered writer that passes each line through ``scrub`` and writes it
  to stderr with a prefix (``print`` from an extension, a library's banner);
- file descriptor 1 itself is a pipe drained by a thread that does the same, so output that
  bypasses ``sys.stdout`` (``os.write(1, ...)``, C code, a child process an extension starts
  without redirecting) cannot reach stdout either;
- the ``with`` value is a private text handle on the real stdout, the one place the result
  object is written.
On exit ``sys.stdout`` and descriptor 1 are restored and the drain thread is given
``DRAIN_JOIN_S`` to finish (a child that keeps the pipe open is not waited for).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TextIO

PREFIX = "aw-harness: stdout: "
DRAIN_JOIN_S = 1.0
_MAX_PARTIAL = 1 << 20
_KEEP = 8192  # chars held back when a huge partial line is flushed, so a secret is not split


class RedactingLineWriter(io.TextIOBase):
    """A text stream that writes each complete line, scrubbed and prefixed, to ``target``."""

    def __init__(self, target: TextIO, scrub: Callable[[str], str], prefix: str = PREFIX) -> None:
        self._target = target
        self._scrub = scrub
        self._prefix = prefix
        self._partial = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._lock:
            self._partial += text
            *lines, self._partial = self._partial.split("\n")
            if len(self._partial) > _MAX_PARTIAL:
                lines.append(self._partial[:-_KEEP])
                self._partial = self._partial[-_KEEP:]
            for line in lines:
                self._emit(line)
        return len(text)

    def _emit(self, line: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._target.write(f"{self._prefix}{self._scrub(line)}\n")

    def flush(self) -> None:
        with self._lock:
            if self._partial:
                self._emit(self._partial)
                self._partial = ""
        with contextlib.suppress(OSError, ValueError):
            self._target.flush()


def _drain(read_fd: int, writer: RedactingLineWriter) -> None:
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while chunk := pipe.read(65536):
            writer.write(chunk.decode("utf-8", errors="replace"))
    writer.flush()


@contextlib.contextmanager
def reserved_stdout(scrub: Callable[[str], str], stderr: TextIO | None = None) -> Iterator[TextIO]:
    """See the module docstring; ``stderr`` defaults to ``sys.stderr``."""
    target = stderr or sys.stderr
    previous = sys.stdout
    with contextlib.suppress(OSError, ValueError):
        previous.flush()
    saved_fd = os.dup(1)
    result = os.fdopen(os.dup(saved_fd), "w", encoding="utf-8", closefd=True)
    read_fd, write_fd = os.pipe()
    os.dup2(write_fd, 1)
    os.close(write_fd)
    fd_writer = RedactingLineWriter(target, scrub)
    drain = threading.Thread(target=_drain, args=(read_fd, fd_writer), name="stdout-drain", daemon=True)
    drain.start()
    sys.stdout = RedactingLineWriter(target, scrub)
    try:
        yield result
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        sys.stdout = previous
        os.dup2(saved_fd, 1)  # closes the pipe's last write end we hold: the drain sees EOF
        os.close(saved_fd)
        drain.join(DRAIN_JOIN_S)
        with contextlib.suppress(OSError, ValueError):
            result.flush()
