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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FILE_COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")


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
