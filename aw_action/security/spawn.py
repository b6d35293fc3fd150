"""The one way the harness starts a process (docs/architecture.md, "One way to spawn").

Every process the harness starts on the agent's behalf or on its files (``bash``, the file
helper, git for patches and fork checks, anything reading the workspace) starts here, and
``tests/security/test_spawn_sites.py`` fails on any other ``subprocess``, ``os.exec*``,
``os.spawn*``, ``os.fork``, ``pty`` or ``asyncio.create_subprocess_*`` in ``aw_action/``. What
every child gets, whatever the caller:

- the user ``launch.identity`` (``security/identity.py``: the tools' user; ``None`` only when
  the harness cannot switch, which the run reports), with no supplementary groups;
- exactly ``launch.env``, never the harness's own environment, and never a variable whose
  name says it holds a credential (``tool_env.is_withheld_name``; ``GITHUB_TOKEN``/``GH_TOKEN``
  pass, their grant is ``tool_env``'s decision): a backstop behind ``tool_env``;
- no inherited descriptor but stdin/stdout/stderr and ``launch.pass_fds`` (``close_fds``);
- the exec wrapper (``landlock.py``'s source, run as ``python -I -S -c``) between the user switch
  and the command, when ``launch.confinement`` is set: ``no_new_privs`` always, Landlock as the
  confinement says. A confinement the wrapper cannot apply ends the child with exit 126 before
  the command runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from aw_action.security import landlock
from aw_action.security.identity import ToolIdentity
from aw_action.security.sandbox import Confinement
from aw_action.security.tool_env import GITHUB_TOKEN_VARS, is_withheld_name

DEVNULL = subprocess.DEVNULL
PIPE = subprocess.PIPE
STDOUT = subprocess.STDOUT
Popen = subprocess.Popen
Stream = int | IO[Any] | None


@dataclass(frozen=True)
class Launch:
    """Who a child runs as, with what, where, and how confined."""

    env: Mapping[str, str]
    cwd: str | Path
    identity: ToolIdentity | None = None
    confinement: Confinement | None = None
    pass_fds: tuple[int, ...] = ()


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: bytes
    stderr: bytes
    timed_out: bool = False


def _world_executable(path: str) -> bool:
    """True when any user can run ``path``: the file and every directory above it are o+x."""
    real = Path(os.path.realpath(path))
    try:
        return all(os.stat(p).st_mode & 0o001 for p in [real, *real.parents])
    except OSError:
        return False


@functools.cache
def helper_python() -> str:
    """An interpreter the tools' user can start: ours when reachable by anyone (the image's
    /opt/aw), else the system's ``python3`` (the wrapper and the file helper need nothing but
    the standard library)."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if candidate and _world_executable(candidate):
            return candidate
    return sys.executable


@functools.cache
def wrapper_source() -> str:
    return Path(landlock.__file__).read_text(encoding="utf-8")


def command(argv: Sequence[str], launch: Launch) -> list[str]:
    """``argv`` behind the exec wrapper when ``launch`` is confined."""
    if launch.confinement is None:
        return list(argv)
    spec = launch.confinement.wrapper_spec()
    unset = [] if "LC_CTYPE" in launch.env else ["unset=LC_CTYPE"]
    return [helper_python(), "-I", "-S", "-c", wrapper_source(), *unset, *spec, *argv]


def child_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` without any credential-named variable (the backstop; see the module docstring)."""
    return {k: v for k, v in env.items() if k in GITHUB_TOKEN_VARS or not is_withheld_name(k)}


def _kwargs(launch: Launch) -> dict[str, Any]:
    identity = launch.identity.popen_kwargs() if launch.identity is not None else {}
    return {
        "env": child_env(launch.env),
        "cwd": launch.cwd,
        "close_fds": True,
        "pass_fds": launch.pass_fds,
        **identity,
    }


def popen(
    argv: Sequence[str],
    launch: Launch,
    *,
    stdin: Stream = DEVNULL,
    stdout: Stream = None,
    stderr: Stream = None,
    new_session: bool = False,
) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command(argv, launch),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        start_new_session=new_session,
        **_kwargs(launch),
    )


async def start(
    argv: Sequence[str],
    launch: Launch,
    *,
    stdin: Stream = DEVNULL,
    stdout: Stream = None,
    stderr: Stream = None,
    new_session: bool = False,
) -> asyncio.subprocess.Process:
    """``popen`` for asyncio (the caller awaits ``wait()``)."""
    full = command(argv, launch)
    return await asyncio.create_subprocess_exec(
        *full, stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=new_session, **_kwargs(launch)
    )


def run(
    argv: Sequence[str],
    launch: Launch,
    *,
    timeout_s: float,
    input: bytes | None = None,
    stdout: Stream = PIPE,
) -> Finished:
    """Run to completion in a session of its own; on timeout the whole session is killed
    (a filter or hook the command started included) and ``timed_out`` is set."""
    proc = popen(
        argv, launch, stdin=PIPE if input is not None else DEVNULL, stdout=stdout, stderr=PIPE, new_session=True
    )
    try:
        out, err = proc.communicate(input, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Finished(proc.returncode, out or b"", err or b"", timed_out=True)
    return Finished(proc.returncode, out or b"", err or b"")
