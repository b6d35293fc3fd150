"""``safe-outputs.jsonl``: the records file, one gh-aw record per line.

Writers (the agent's tools, the bash CLI, possibly at once) take an exclusive ``flock`` on the
records file itself, count what is already there, and append one complete line with a single
``write`` followed by ``fsync``; a line that a killed writer left without its newline is closed
first, so it stays one unreadable line and never glues itself to the next record. Readers
therefore see whole lines only; ``read_records`` reports any line that is not a JSON object with
a string ``type`` instead of failing the file.

In a run the harness (root) reaches the file through the output dir it holds (its ledger's
``open``): a records file the agent swapped for a link, or a dir it renamed and replaced, is
never written or read through. The agent's own ``aw-harness safe-output`` goes by path, never
through a link.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aw_action.environment.strict_json import parse_json
from aw_action.lazy_dataclass import dataclass
from aw_action.run import record_table
from aw_action.security.records.record_guard import RecordWrites, open_record

RECORDS_FILE = record_table.SAFE_OUTPUTS.name


@dataclass(frozen=True)
class RecordLine:
    """Line ``number`` (1-based): the record, or why it cannot be one."""

    number: int
    record: dict[str, Any] | None
    error: str | None = None

    @property
    def type(self) -> str | None:
        return self.record["type"] if self.record is not None else None


def normalise_type(value: str) -> str:
    """gh-aw writes ``type`` in snake_case and converts dashes (``safe_outputs_append.cjs``)."""
    return value.strip().replace("-", "_")


def parse_line(number: int, raw: bytes) -> RecordLine:
    try:
        value = parse_json(raw.decode("utf-8"), finite=True)
    except (UnicodeDecodeError, ValueError) as exc:
        return RecordLine(number, None, f"line {number}: not valid JSON ({type(exc).__name__})")
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return RecordLine(number, None, f"line {number}: not a record (a JSON object with a string 'type')")
    value["type"] = normalise_type(value["type"])
    return RecordLine(number, value)


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def read_records(path: Path, records: RecordWrites | None = None) -> list[RecordLine]:
    """Every non-blank line of the file, in order; a missing file, or anything but a regular
    file, has none. ``records``: the run's ledger, to read it in the held output dir."""
    try:
        fd = open_record(Path(path), os.O_RDONLY | os.O_NONBLOCK, records)
    except (FileNotFoundError, NotADirectoryError):
        return []
    try:
        data = _read_all(fd) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)
    return [parse_line(i, raw) for i, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]


def encode(record: dict[str, Any]) -> bytes:
    """One compact line, as gh-aw writes it (``JSON.stringify`` + newline)."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8") + b"\n"


class RecordLog:
    """The records file in ``output_dir`` and its lock (opened through ``records`` when given)."""

    def __init__(self, output_dir: Path, records: RecordWrites | None = None) -> None:
        self.output_dir = Path(output_dir)
        self.path = self.output_dir / RECORDS_FILE
        self._records = records
        self._fd: int | None = None

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive across threads and processes (``flock`` is per open file description);
        ``count`` and ``append`` use the file opened here while it is held."""
        fd = open_record(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, self._records)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{self.path} is not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._fd = fd
            yield
        finally:
            self._fd = None
            os.close(fd)  # closing releases the lock

    def count(self, record_type: str) -> int:
        if self._fd is None:
            return sum(1 for line in read_records(self.path, self._records) if line.type == record_type)
        data = _read_all(self._fd)
        lines = [parse_line(i, raw) for i, raw in enumerate(data.split(b"\n"), start=1) if raw.strip()]
        return sum(1 for line in lines if line.type == record_type)

    def append(self, record: dict[str, Any]) -> None:
        """Append one record; call it while holding ``locked()``."""
        line = encode(record)
        fd = self._fd if self._fd is not None else open_record(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, None)
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                line = b"\n" + line  # close a torn line left by a killed writer
            view = memoryview(line)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            if fd != self._fd:
                os.close(fd)
