"""One run, one set of records: an earlier run's files are moved aside before a run starts.

The run's record files keep their documented paths in the output dir (gh-aw and later steps of
the job read them there), so a second run in the same folder (two action steps in one job, two
CLI runs) would append to or overwrite the first's. ``move_aside`` moves every record file an
earlier run left at the top of the folder into ``previous-runs/<run>/``, where ``<run>`` is that
run's start (UTC) and the head of its session id, read from its own records
(``20261130T201546Z-8c724e44``). Only the names the caller lists are touched: the folder may be
shared with other tools (gh-aw's ``/tmp/gh-aw``).

Contract: nothing is deleted, overwritten or appended to; a name taken in ``previous-runs/``
gets a ``-2``, ``-3`` suffix. Regular files and symbolic links are moved (a link left under a
record's name would have the run write through it); a folder, FIFO or device under such a name
is no run's record and stays (the writer that meets it reports it). Records are read only from
regular files, at most ``HEAD_BYTES`` of each, without blocking or following links. A file
that cannot be moved raises ``OSError`` after the others were moved: the caller must not start
a run that would write over it. Everything happens relative to the folder opened once
(``security/record_dir``): ``previous-runs`` and the run's folder in it are never followed
through a link, and an output dir that is itself a link raises ``OSError``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import os
import re
import stat
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aw_action.lazy_dataclass import dataclass
from aw_action.security.records.record_dir import RecordDir

PREVIOUS_RUNS_DIR = "previous-runs"
HEAD_BYTES = 64 * 1024
HEAD_LINES = 20


@dataclass(frozen=True)
class RunFiles:
    """The files one run writes at the top of its output dir: exact ``names`` and ``patterns``
    (``fnmatch``) for files whose names vary (a bash spill file, a patch)."""

    names: tuple[str, ...]
    patterns: tuple[str, ...] = ()

    def matches(self, name: str) -> bool:
        return name in self.names or any(fnmatch.fnmatchcase(name, p) for p in self.patterns)

    def present(self, folder: Path) -> list[Path]:
        """The run files in ``folder``, ``names`` first in their order, then the rest by name."""
        try:
            entries = sorted(os.listdir(folder))
        except (FileNotFoundError, NotADirectoryError):
            return []
        found = [folder / name for name in entries if self.matches(name) and _file_or_link(folder / name)]
        order = {name: i for i, name in enumerate(self.names)}
        return sorted(found, key=lambda p: (order.get(p.name, len(order)), p.name))


def move_aside(folder: Path, files: RunFiles) -> Path | None:
    """Move an earlier run's files into ``folder/previous-runs/<run>/``; the new folder, or
    None when there was nothing to move."""
    found = files.present(folder)
    if not found:
        return None
    with contextlib.closing(RecordDir(folder)) as held:
        target = _free(held, folder / PREVIOUS_RUNS_DIR, run_name(found))
        failed: list[str] = []
        with held.folder(target, make=True) as into:
            for path in found:
                try:
                    os.rename(path.name, path.name, src_dir_fd=held.fd, dst_dir_fd=into)
                except OSError as exc:
                    failed.append(f"{path.name}: {exc.strerror or exc}")
    if failed:
        raise OSError(f"could not move {', '.join(failed)} into {target}")
    return target


def run_name(found: list[Path]) -> str:
    """``<start>-<session id head>`` from the earlier run's own records; the files' oldest
    modification time and ``unknown`` stand in for what they do not say."""
    started: datetime | None = None
    session = ""
    for record in _head_records(found):
        started = started or _when(record.get("timestamp"))
        session = session or _session_id(record)
        if started and session:
            break
    if started is None:
        started = datetime.fromtimestamp(min(_mtime(p) for p in found), UTC)
    head = re.sub(r"[^A-Za-z0-9]", "", session)[:8] or "unknown"
    return f"{started.strftime('%Y%m%dT%H%M%SZ')}-{head}"


def _file_or_link(path: Path) -> bool:
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode)


def _free(held: RecordDir, parent: Path, name: str) -> Path:
    """The first of ``parent/name``, ``parent/name-2``, ... that does not exist yet."""
    candidate, n = parent / name, 1
    while _exists(held, candidate):
        n += 1
        candidate = parent / f"{name}-{n}"
    return candidate


def _exists(held: RecordDir, path: Path) -> bool:
    try:
        held.lstat(path)
    except FileNotFoundError:
        return False
    return True


def _session_id(record: dict[str, Any]) -> str:
    if record.get("type") == "session" and isinstance(record.get("id"), str):
        return str(record["id"])
    data = record.get("data")
    for value in (data.get("sessionId") if isinstance(data, dict) else None, record.get("session_id")):
        if isinstance(value, str) and value:
            return value
    return ""


def _when(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value < 1e14:
        return datetime.fromtimestamp(value / 1000, UTC)
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
            return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _head_records(found: list[Path]) -> Iterator[dict[str, Any]]:
    for path in found:
        for line in _head(path).split("\n")[:HEAD_LINES]:
            with contextlib.suppress(ValueError, RecursionError):
                value = json.loads(line)
                if isinstance(value, dict):
                    yield value


def _head(path: Path) -> str:
    """The first ``HEAD_BYTES`` of a regular file; ``""`` for anything else."""
    try:
        if not stat.S_ISREG(path.lstat().st_mode):
            return ""
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _mtime(path: Path) -> float:
    try:
        return path.lstat().st_mtime
    except OSError:
        return 0.0
