"""A command's output as the ``bash`` tool collects it and as the model gets it.

Collecting: memory stays bounded whatever the command prints. The first ``max_bytes`` bytes are
kept (the head), plus a rolling window of the last ``2 * max_bytes`` bytes (the tail); once the
window overflows, everything so far goes to ``output_dir/bash-<16 hex>.log`` and every later
chunk is appended there. Bytes and newlines are counted so that line numbers refer to the whole
output, and a SHA-256 of all of it tells a repeat of an earlier output. The log keeps at most
``MAX_LOG_BYTES`` (a command printing gigabytes fills neither memory nor the disk), and a log
that cannot be written (disk full, quota) stops without stopping the command; the footer then
says how much of the output it holds.

For the model (``finish``): the whole output when it fits ``HEAD_TAIL_MAX_LINES`` lines and
``HEAD_TAIL_MAX_BYTES`` bytes; otherwise its first and last lines around an omission marker,
then a footer naming the lines shown and the file with the complete output (always written when
anything is cut)::

    1
    ...
    128
    [... 189746 lines (1.3MB) omitted ...]
    189875
    ...
    190001

    [Showing lines 1-128 and 189875-190001 of 190001. Full output: /tmp/gh-aw/bash-0f3c....log]

The log is a file the harness writes into the output dir: with the run's ledger (``records``)
it is created, rewritten (``rewrite_log``, e.g. through the redactor) and adopted inside the
output dir the run holds open, never through a symbolic link (``security/record_dir``).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from aw_action.security.records.record_guard import RecordWrites, open_record
from aw_action.tools.truncate import (
    HEAD_TAIL_MAX_BYTES,
    HEAD_TAIL_MAX_LINES,
    HeadTail,
    Truncation,
    format_size,
    head_tail_of,
    truncate_head_tail,
    truncate_tail,
)

MAX_LOG_BYTES = 32 * 1024 * 1024
"""The saved output log keeps the first this many bytes of a command's output."""


class CommandOutput:
    def __init__(
        self,
        output_dir: Path,
        max_lines: int = HEAD_TAIL_MAX_LINES,
        max_bytes: int = HEAD_TAIL_MAX_BYTES,
        records: RecordWrites | None = None,
    ) -> None:
        self.output_dir = output_dir
        self.records = records
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.head = bytearray()
        self.tail = bytearray()
        self.total_bytes = 0
        self.newlines = 0
        self.digest = hashlib.sha256()
        self.path: Path | None = None
        self._file: IO[bytes] | None = None
        self.logged = 0
        self.log_error: str | None = None
        """Why the output log stopped (disk full, unwritable dir); the command still runs."""

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self.newlines += data.count(b"\n")
        self.digest.update(data)
        if len(self.head) < self.max_bytes:
            self.head += data[: self.max_bytes - len(self.head)]
        self.tail += data
        excess = len(self.tail) - 2 * self.max_bytes
        if excess > 0:
            if self._file is None and self.log_error is None and self.path is None:
                self._file = self._open()
                self._log(bytes(self.tail))
            else:
                self._log(data)
            del self.tail[:excess]
        elif self._file is not None:
            self._log(data)

    def _log(self, data: bytes) -> None:
        room = MAX_LOG_BYTES - self.logged
        if self._file is None or room <= 0:
            return
        try:
            self._file.write(data[:room])
        except OSError as exc:  # disk full, quota: the log stops, the command goes on
            self._fail(exc)
            return
        self.logged += min(room, len(data))

    def _fail(self, exc: OSError) -> None:
        self.log_error = exc.strerror or str(exc)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    @property
    def log_truncated(self) -> bool:
        return self.total_bytes > self.logged and self.path is not None

    def _open(self) -> IO[bytes] | None:
        try:
            self.path = self.output_dir / f"bash-{secrets.token_hex(8)}.log"
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            return os.fdopen(open_record(self.path, flags, self.records), "wb")
        except OSError as exc:
            self._fail(exc)
            return None

    def rewrite_log(self, transform: Callable[[IO[str], IO[str]], None]) -> None:
        """Pass the closed log through ``transform(source, target)`` (text, UTF-8, undecodable
        bytes replaced) into a new file that then replaces it; if that fails, the log is removed
        (a half-rewritten one, e.g. not yet redacted, must not stay). Afterwards the log, if any,
        is adopted by the ledger. Nothing happens without a log."""
        path = self.path
        if path is None:
            return
        scratch = path.with_suffix(".scrub")
        try:
            with (
                os.fdopen(
                    open_record(path, os.O_RDONLY | os.O_NONBLOCK, self.records),
                    "r",
                    encoding="utf-8",
                    errors="replace",
                    newline="",
                ) as source,
                os.fdopen(
                    open_record(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, self.records), "w", encoding="utf-8"
                ) as target,
            ):
                transform(source, target)
            self._rename(scratch, path)
        except OSError:
            for leftover in (path, scratch):
                with contextlib.suppress(OSError):
                    self._unlink(leftover)
        self.adopt_log()

    def adopt_log(self) -> None:
        """Tell the ledger the log's whole content is the harness's (when there is a log)."""
        if self.records is not None and self.path is not None:
            with contextlib.suppress(OSError):
                self.records.adopt(self.path)

    def _rename(self, source: Path, target: Path) -> None:
        if self.records is not None:
            self.records.rename(source, target)
        else:
            os.replace(source, target)

    def _unlink(self, path: Path) -> None:
        if self.records is not None:
            self.records.unlink(path)
        else:
            path.unlink()

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:  # the last buffered bytes did not fit
                self._fail(exc)
            self._file = None

    @property
    def complete_in_memory(self) -> bool:
        return self.total_bytes == len(self.tail)

    def _decode(self, data: bytes | bytearray) -> str:
        return data.decode("utf-8", errors="replace")

    def snapshot(self) -> Truncation:
        """The latest output, for progress updates: the tail only, no footer."""
        text = self._decode(self.tail)
        return truncate_tail(text.removesuffix("\n"), max_lines=self.max_lines, max_bytes=self.max_bytes)

    def _total_lines(self) -> int:
        return self.newlines if self.tail.endswith(b"\n") else self.newlines + 1

    def cut(self) -> HeadTail:
        if self.complete_in_memory:
            text = self._decode(self.tail).removesuffix("\n")  # a final newline ends the last line
            return truncate_head_tail(text, max_lines=self.max_lines, max_bytes=self.max_bytes)
        head = self._decode(self.head)
        if "\n" in head:
            head = head.rsplit("\n", 1)[0]  # whole lines only: the buffer may end mid-line
        tail = self._decode(self.tail).removesuffix("\n")
        total = self._total_lines()
        return head_tail_of(head, tail, total, self.total_bytes, max_lines=self.max_lines, max_bytes=self.max_bytes)

    def finish(self) -> tuple[str, dict[str, Any]]:
        """Close the spill file; the text for the model ("" if there was no output) and details.

        Writes the whole output to a file if it was cut without having been spilled, so the footer
        always names a file with the complete output.
        """
        cut = self.cut()
        truncated = cut.truncated or self.path is not None
        if truncated and self.path is None and self.log_error is None:
            self._file = self._open()
            self._log(bytes(self.tail))
        self.close()
        details: dict[str, Any] = {"truncated": truncated, "full_output_path": str(self.path) if self.path else None}
        if not truncated:
            return cut.head, details
        details.update(total_lines=cut.total_lines, total_bytes=self.total_bytes)
        body, shown = self._body(cut), self._shown(cut)
        if self.log_error is not None:
            details["log_error"] = self.log_error
            where = f": {self.path}" if self.path is not None and self.logged else ""
            return f"{body}\n\n[Showing {shown}. Output log incomplete ({self.log_error}){where}]", details
        if self.log_truncated:
            details["log_truncated"] = True
            kept = f"first {format_size(self.logged)} of {format_size(self.total_bytes)}"
            return f"{body}\n\n[Showing {shown}. Output log ({kept}): {self.path}]", details
        return f"{body}\n\n[Showing {shown}. Full output: {self.path}]", details

    @staticmethod
    def _body(cut: HeadTail) -> str:
        size = format_size(cut.omitted_bytes)
        lines = f"{cut.omitted_lines} lines ({size})" if cut.omitted_lines else size
        marker = f"[... {lines} omitted ...]"
        return "\n".join(part for part in (cut.head, marker, cut.tail) if part)

    @staticmethod
    def _shown(cut: HeadTail) -> str:
        total = cut.total_lines
        if cut.head_partial and cut.tail_partial and total == 1:
            sizes = [format_size(len(part.encode("utf-8", "surrogatepass"))) for part in (cut.head, cut.tail)]
            return f"the first {sizes[0]} and the last {sizes[1]} of line 1 ({format_size(cut.total_bytes)})"
        if cut.head_partial:
            head = f"the first {format_size(len(cut.head.encode('utf-8', 'surrogatepass')))} of line 1"
        else:
            head = f"lines 1-{cut.head_lines}" if cut.head_lines else ""
        if cut.tail_partial:
            tail = f"the last {format_size(len(cut.tail.encode('utf-8', 'surrogatepass')))} of line {total}"
        elif cut.tail_lines:
            tail = f"{'' if head.startswith('lines') else 'lines '}{total - cut.tail_lines + 1}-{total}"
        else:
            tail = ""
        return f"{' and '.join(p for p in (head, tail) if p)} of {total}"

    def repeat_notice(self, earlier_call: str) -> str:
        """The text for an output identical to one the model was already shown."""
        return (
            f"[Output identical to that of bash call {earlier_call}: {self._total_lines()} lines, "
            f"{format_size(self.total_bytes)}. Full output: {self.path}]"
        )
