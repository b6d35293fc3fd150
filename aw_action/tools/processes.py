"""Every process the agent starts can be found and killed, however it detached.

A command's own process group covers ``cmd &`` and ``nohup cmd &``, but not ``setsid cmd &``
or a daemon that double-forks: those leave the group and, once their shell exits, would be
adopted by init and outlive the run. Three mechanisms close that gap (Linux):

- **subreaper**: ``enable_subreaper()`` sets ``PR_SET_CHILD_SUBREAPER`` on the harness process
  (``prctl`` through ctypes; no privilege needed), so an orphaned descendant is re-parented to
  the harness instead of init: it stays in the harness's process tree, where it can be found,
  killed and reaped;
- **marker**: every command runs with ``AW_AGENT_PROCESS=<run token>:<call token>`` in its
  environment, which its descendants inherit; ``/proc/*/environ`` tells which processes a run,
  or one tool call, started (even one that escaped the tree before the subreaper was set);
- **process group**: ``killpg`` on the command's group, as before.

``kill_call(token, pgid)`` ends one tool call's processes (used on timeout, abort and
cancellation); ``kill_all_agent_processes()`` ends every process any command of this run
started, plus every other descendant of the harness (run end). Both are idempotent, use SIGKILL,
reap the zombies they leave with the harness (never a child asyncio is still waiting for), and
give up after ``deadline_s`` (a process stuck in uninterruptible sleep cannot hold the exit).
``kill_all_agent_processes`` is also registered with ``atexit`` once the first command runs, so
the CLI cleans up even on a path that forgot to call it.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import os
import secrets
import signal
import time
from collections.abc import Iterable
from pathlib import Path

from aw_action.environment.runner import AGENT_PROCESS_VAR

MARKER = AGENT_PROCESS_VAR
PR_SET_CHILD_SUBREAPER = 36
RUN_TOKEN = secrets.token_hex(8)
"""Identifies this harness process's commands (a test process may host many runs: one token)."""

_live_shells: set[int] = set()
"""Shells whose exit status asyncio still waits for: never reaped here."""
_state = {"subreaper": False, "atexit": False}


def enable_subreaper() -> bool:
    """Make the harness the reaper of its orphaned descendants. Idempotent; False where the
    platform has no ``prctl`` (the marker still finds escaped processes there)."""
    if _state["subreaper"]:
        return True
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    _state["subreaper"] = True
    return True


def prepare_command_env(env: dict[str, str], call_token: str) -> dict[str, str]:
    """``env`` plus the marker; also turns on the subreaper and the exit-time cleanup."""
    enable_subreaper()
    if not _state["atexit"]:
        atexit.register(kill_all_agent_processes)
        _state["atexit"] = True
    return {**env, MARKER: f"{RUN_TOKEN}:{call_token}"}


def shell_started(pid: int) -> None:
    _live_shells.add(pid)


def shell_finished(pid: int) -> None:
    _live_shells.discard(pid)


def _proc_pids() -> list[int]:
    try:
        return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]
    except OSError:
        return []


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, ppid)`` of a process, None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return (fields[0], int(fields[1])) if len(fields) > 1 else None


def _marker_of(pid: int) -> str | None:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    prefix = f"{MARKER}=".encode()
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix) :].decode(errors="replace")
    return None


def _descendants(root: int, table: dict[int, tuple[str, int]]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, (_, ppid) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _targets(call_token: str | None, everything: bool) -> tuple[set[int], dict[int, tuple[str, int]]]:
    """Live (not zombie) processes to kill, and the process table they were found in."""
    me = os.getpid()
    table = {pid: st for pid in _proc_pids() if (st := _stat(pid)) is not None}
    wanted = f"{RUN_TOKEN}:{call_token}" if call_token is not None else None
    found: set[int] = set()
    for pid, (state, _) in table.items():
        if pid == me or state == "Z":
            continue
        marker = _marker_of(pid)
        if marker is not None and (marker == wanted if wanted else marker.startswith(f"{RUN_TOKEN}:")):
            found.add(pid)
    if everything:
        found |= {pid for pid in _descendants(me, table) if table[pid][0] != "Z"}
    found.discard(me)
    found.discard(1)
    return found, table


def _reap(candidates: Iterable[int]) -> None:
    """Collect the exit status of our zombie children among ``candidates`` (not live shells)."""
    for pid in candidates:
        if pid in _live_shells:
            continue
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)


def _zombie_children(table: dict[int, tuple[str, int]]) -> list[int]:
    me = os.getpid()
    return [pid for pid, (state, ppid) in table.items() if ppid == me and state == "Z"]


def _kill_until_gone(call_token: str | None, pgids: Iterable[int], everything: bool, deadline_s: float) -> int:
    """SIGKILL the targets round after round until none is left or the deadline passes; returns
    how many processes were signalled."""
    deadline = time.monotonic() + deadline_s
    groups = list(pgids)
    signalled: set[int] = set()
    while True:
        for pgid in groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        targets, table = _targets(call_token, everything)
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        signalled |= targets
        _reap([*signalled, *(_zombie_children(table) if everything else [])])
        if not targets or time.monotonic() > deadline:
            return len(signalled)
        groups = []
        time.sleep(0.01)


def kill_call(call_token: str, pgid: int | None = None, deadline_s: float = 2.0) -> int:
    """Kill one tool call's processes: its process group and everything carrying its marker."""
    return _kill_until_gone(call_token, [pgid] if pgid else [], everything=False, deadline_s=deadline_s)


def kill_all_agent_processes(deadline_s: float = 3.0) -> int:
    """Kill every process a command of this run started and every other descendant of the
    harness, then reap them. Idempotent, bounded by ``deadline_s``; call it at shutdown.
    Returns how many processes were signalled (0 when nothing was left)."""
    return _kill_until_gone(None, [], everything=True, deadline_s=deadline_s)
