"""The job's file commands stay the harness's: the agent cannot leave lines in ``GITHUB_ENV``.

Why: the runner mounts ``/github/file_commands`` from the host, where its files and folder
belong to the runner's uid, the very uid tools run as. A line such as ``BASH_ENV=/tmp/x``
written to ``GITHUB_ENV`` would run the agent's script in every later ``run:`` step, with those
steps' secrets. Ownership cannot fix it (the runner must still create and delete files in that
folder), so the harness restores the files instead, once the agent can no longer write:

1. the harness is a child subreaper from the start (``tools/processes.enable_subreaper``):
   processes the tools daemonise (``setsid``, double fork) are re-parented to the harness
   instead of escaping to PID 1;
2. at the end of the session ``tools/processes.kill_all_agent_processes()`` SIGKILLs every
   remaining descendant (the harness does it before sealing the run: ``harness/guards.py``);
3. then ``FileCommandGuard.restore()`` puts ``GITHUB_ENV``, ``GITHUB_PATH``, ``GITHUB_STATE``,
   ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` back to what they held when ``snapshot`` was
   taken (before any tool ran) and names those that were changed (a degraded run);
4. only then does the harness write its outputs and summary.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")


@dataclass(frozen=True)
class _Snapshot:
    path: Path
    content: bytes | None
    """``None``: there was no file."""


def _read(path: Path) -> bytes | None:
    """The file's bytes; ``None`` when there is no regular file there (a symlink is not one)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _present(path: Path) -> bool:
    return os.path.lexists(path)


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
            content = _read(path)
            if content is None and _present(path):
                continue  # not a regular file even now: not ours to judge
            snaps[name] = _Snapshot(path, content)
        return cls(snaps)

    def restore(self) -> list[str]:
        """Put every file back as snapshotted (a file that did not exist is removed again);
        returns the names of those that had changed. Never raises: a file that cannot be put
        back is still named."""
        changed: list[str] = []
        for name, snap in self._snapshots.items():
            current = _read(snap.path)
            if current == snap.content and (current is not None or not _present(snap.path)):
                continue
            changed.append(name)
            with contextlib.suppress(OSError):
                self._put_back(snap, current)
        return changed

    @staticmethod
    def _put_back(snap: _Snapshot, current: bytes | None) -> None:
        if current is None and _present(snap.path):
            snap.path.unlink()  # a symlink or another planted entry; a directory raises (named anyway)
        if snap.content is None:
            snap.path.unlink(missing_ok=True)
            return
        fd = os.open(snap.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(snap.content)
