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
   taken (before any tool ran), content and permission bits (``chmod 000`` on ``GITHUB_OUTPUT``
   would fail the runner's next write), and names those that were changed (a degraded run);
4. only then does the harness write its outputs and summary.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from aw_action.environment.runner import FILE_COMMANDS
from aw_action.lazy_dataclass import dataclass


@dataclass(frozen=True)
class _State:
    """A file command as found: its bytes (``None``: unreadable) and permission bits."""

    content: bytes | None
    mode: int


@dataclass(frozen=True)
class _Snapshot:
    path: Path
    state: _State | None
    """``None``: there was no file."""


def _state(path: Path) -> _State | None:
    """The regular file at ``path`` (a symlink is not one); ``None`` when there is none."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return _State(None, stat.S_IMODE(st.st_mode))  # chmod 000 on a file the harness does not own
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return _State(fh.read(), stat.S_IMODE(os.fstat(fh.fileno()).st_mode))


def _present(path: Path) -> bool:
    return os.path.lexists(path)


class FileCommandGuard:
    def __init__(self, snapshots: dict[str, _Snapshot]) -> None:
        self._snapshots = snapshots

    @classmethod
    def snapshot(cls, env: Mapping[str, str]) -> FileCommandGuard:
        """Record the file commands' content and mode now (before any tool runs)."""
        snaps: dict[str, _Snapshot] = {}
        for name in FILE_COMMANDS:
            value = env.get(name)
            if not value:
                continue
            path = Path(value)
            state = _state(path)
            if state is None and _present(path):
                continue  # not a regular file even now: not ours to judge
            if state is not None and state.content is None:
                continue  # unreadable to the harness even now: it cannot restore it
            snaps[name] = _Snapshot(path, state)
        return cls(snaps)

    def restore(self) -> list[str]:
        """Put every file back as snapshotted, content and mode (a file that did not exist is
        removed again); returns the names of those that had changed. Never raises: a file that
        cannot be put back is still named."""
        changed: list[str] = []
        for name, snap in self._snapshots.items():
            current = _state(snap.path)
            if current == snap.state and (current is not None or not _present(snap.path)):
                continue
            changed.append(name)
            with contextlib.suppress(OSError):
                self._put_back(snap, current)
        return changed

    @staticmethod
    def _put_back(snap: _Snapshot, current: _State | None) -> None:
        if current is None and _present(snap.path):
            snap.path.unlink()  # a symlink or another planted entry; a directory raises (named anyway)
        if snap.state is None or snap.state.content is None:
            snap.path.unlink(missing_ok=True)
            return
        if current is not None:  # writable again whatever mode the agent left (no symlink is followed)
            handle = os.open(snap.path, os.O_PATH | os.O_NOFOLLOW)
            try:
                os.chmod(f"/proc/self/fd/{handle}", 0o600)
            finally:
                os.close(handle)
        fd = os.open(snap.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(snap.state.content)
            os.fchmod(fh.fileno(), snap.state.mode)
