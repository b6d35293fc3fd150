"""Harden the harness process itself: not dumpable, and its initial environment block wiped.

What each step does, verified by tests/security/test_process_guard.py on Linux:

- ``make_non_dumpable()`` (``prctl(PR_SET_DUMPABLE, 0)``): ``/proc/<pid>/environ``, ``mem``,
  ``maps``, ``fd/`` and ``ptrace`` of the harness are refused to every process of the same uid
  that lacks ``CAP_SYS_PTRACE``; the files become root-owned. It does **not** stop root (which
  holds ``CAP_SYS_PTRACE``): that is why tools must run as another user when the harness is root
  (``identity.py``). ``cmdline`` stays world-readable whatever the flag, so no secret may ever
  be on a command line. The flag is reset by ``execve``, so children (tools) are unaffected.
- ``wipe_initial_environ(names)``: ``/proc/<pid>/environ`` shows the environment block the
  process was *started* with; deleting from ``os.environ`` does not change it (Python's copy
  lives elsewhere). This overwrites the named variables' values in that block with NUL bytes,
  in place (the technique setproctitle uses for argv). Afterwards C-level ``getenv`` and any
  child started with ``env=None`` see an empty value; ``os.environ`` (Python's copy) keeps the
  value. It does not defeat a reader of ``/proc/<pid>/mem`` (the heap still holds the values).

Both are best effort and never raise: they return a ``GuardReport`` saying what held, so the
caller can put an honest line in the run's record.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterable

from aw_action.lazy_dataclass import dataclass

PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4


@dataclass(frozen=True)
class GuardReport:
    applied: bool
    detail: str


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def is_dumpable() -> bool | None:
    """The process's dumpable flag; ``None`` where it cannot be read (not Linux)."""
    libc = _libc()
    if libc is None:
        return None
    return bool(libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0))


def make_non_dumpable() -> GuardReport:
    """Clear the dumpable flag (Linux); elsewhere a no-op that says why."""
    libc = _libc()
    if libc is None:
        return GuardReport(False, f"not Linux ({sys.platform}): the process stays dumpable")
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        return GuardReport(False, f"prctl(PR_SET_DUMPABLE, 0) failed: {os.strerror(err)}")
    return GuardReport(True, "non-dumpable: same-uid processes without CAP_SYS_PTRACE cannot read /proc/<pid>")


def _environ_block() -> tuple[int, int] | None:
    """``env_start``/``env_end`` (fields 50 and 51 of /proc/self/stat, Linux >= 3.5)."""
    try:
        with open("/proc/self/stat", encoding="ascii", errors="replace") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()  # field 3 onwards; comm may hold spaces
    if len(fields) < 49:
        return None
    start, end = int(fields[47]), int(fields[48])
    return (start, end) if 0 < start < end else None


def wipe_initial_environ(names: Iterable[str]) -> GuardReport:
    """Overwrite the values of ``names`` in the initial environment block with NUL bytes.

    Call it after everything that needs these variables read them from ``os.environ`` (Python
    copied the block at start-up) and before any tool runs. Children must then get an explicit
    ``env=`` for any of these values they need.
    """
    wanted = {n.encode() for n in names if n}
    if not sys.platform.startswith("linux"):
        return GuardReport(False, f"not Linux ({sys.platform}): the initial environment is left as is")
    block = _environ_block()
    if block is None:
        return GuardReport(False, "the initial environment block could not be located (/proc/self/stat)")
    start, end = block
    raw = ctypes.string_at(start, end - start)
    wiped: list[str] = []
    offset = 0
    for entry in raw.split(b"\0"):
        name, sep, value = entry.partition(b"=")
        if sep and value and name in wanted:
            ctypes.memset(start + offset + len(name) + 1, 0, len(value))
            wiped.append(name.decode(errors="replace"))
        offset += len(entry) + 1
    return GuardReport(True, f"wiped from the initial environment: {', '.join(sorted(wiped)) or 'nothing'}")
