"""The job's file commands stay the harness's: the agent cannot leave lines in ``GITHUB_ENV``.

Why: the runner mounts ``/github/file_commands`` from the host, where its files and folder
belong to the runner's uid, the very uid tools run as. A line such as ``BASH_ENV=/tmp/x``
written to ``GITHUB_ENV`` would run the agent's script in every later ``run:`` step, with those
steps' secrets. Ownership cannot fix it (the runner must still create and delete files in that
folder), so the harness restores the files instead, once the agent can no longer write:

1. ``become_subreaper()`` early: processes the tools daemonise (``setsid``, double fork) are
   re-parented to the harness instead of escaping to PID 1;
2. at the end of the session, ``kill_descendants()`` SIGKILLs every remaining descendant;
3. then ``FileCommandGuard.restore()`` puts ``GITHUB_ENV``, ``GITHUB_PATH``, ``GITHUB_STATE``,
   ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` back to what they held when ``snapshot`` was
   taken (before any tool ran) and names those that were changed (a degraded run);
4. only then does the harness write its outputs and summary.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")
PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make orphaned descendants re-parent to this process (Linux >= 3.4); False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def _parents() -> dict[int, int]:
    out: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                stat = fh.read()
            out[int(entry)] = int(stat[stat.rindex(")") + 2 :].split()[1])
    return out


def descendants(pid: int | None = None) -> set[int]:
    """Every live descendant of ``pid`` (default: this process)."""
    root = os.getpid() if pid is None else pid
    parents = _parents()
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier and child not in found}
        found |= frontier
    return found


def kill_descendants(rounds: int = 5, pause_s: float = 0.05) -> int:
    """SIGKILL every descendant, repeatedly (a dying shell may have forked once more), and reap
    the zombies re-parented to us. Returns how many processes were signalled."""
    signalled = 0
    for _ in range(rounds):
        alive = descendants()
        if not alive:
            break
        for pid in alive:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                signalled += 1
        time.sleep(pause_s)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass
    return signalled


@dataclass(frozen=True)
class _Snapshot:
    path: Path
    content: bytes


class FileCommandGuard:
    def __init__(self, snapshots: dict[str, _Snapshot]) -> None:
        self._snapshots = snapshots

    @classmethod
    def snapshot(cls, env: Mapping[str, str]) -> FileCommandGuard:
        """Record the file commands' content now (before any tool runs)."""
        snaps: dict[str, _Snapshot] = {}
        for name in FILE_COMMANDS:
            value = env.get(name)
            if not value:
                continue
            path = Path(value)
            try:
                content = path.read_bytes()
            except FileNotFoundError:
                content = b""
            except OSError:
                continue
            snaps[name] = _Snapshot(path, content)
        return cls(snaps)

    def restore(self) -> list[str]:
        """Put every file back as snapshotted; returns the names of those that had changed."""
        changed: list[str] = []
        for name, snap in self._snapshots.items():
            try:
                if snap.path.is_symlink() or not snap.path.is_file():
                    raise FileNotFoundError
                current = snap.path.read_bytes()
            except OSError:
                current = None
            if current == snap.content:
                continue
            changed.append(name)
            with contextlib.suppress(FileNotFoundError):
                if snap.path.is_symlink() or not snap.path.is_file():
                    snap.path.unlink()
            fd = os.open(snap.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(snap.content)
        return changed
