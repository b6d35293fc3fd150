"""The one way the harness starts a process (docs/architecture.md, "One way to spawn").

Every process the harness starts on the agent's behalf or on its files (``bash``, the file
helper, git for patches and fork checks, anything reading the workspace) starts here, and
``tests/security/test_spawn_sites.py`` fails on any other ``subprocess``, ``os.exec*``,
``os.spawn*``, ``os.fork``, ``pty`` or ``asyncio.create_subprocess_*`` in ``aw_action/``. What
every child gets, whatever the caller:

- the user ``launch.identity`` (``security/confinement/identity.py``: the tools' user; ``None`` only when
  the harness cannot switch, which the run reports), with no supplementary groups;
- exactly ``launch.env``, never the harness's own environment, and never a variable whose
  name says it holds a credential (``tool_env.is_withheld_name``; ``GITHUB_TOKEN``/``GH_TOKEN``
  pass, their grant is ``tool_env``'s decision): a backstop behind ``tool_env``;
- no inherited descriptor but stdin/stdout/stderr and ``launch.pass_fds`` (``close_fds``);
- the exec wrapper (``seccomp.py``'s and ``landlock.py``'s sources as one program, run as
  ``python -I -S -c``) between the user switch and the command, when ``launch.confinement`` is
  set: ``no_new_privs`` always, Landlock and the seccomp filter as the confinement says. A
  confinement the wrapper cannot apply ends the child with exit 126 before the command runs.

``start`` (the bash tool's) hands a confined command whose streams are descriptors or
``/dev/null`` to a spawn server instead (``spawn_server.py``, the harness's side in
``served.py``): one per tools' user and confinement, started once through ``popen`` behind the
same wrapper, which forks and execs each command inside the confinement it already has. The
command gets the same user, environment, descriptors and kernel confinement as through the
wrapper; what changes is the cost (a fork and an exec instead of an interpreter start: about
15 ms of CPU a command). A server that cannot start, or closes, is reported as ``OSError`` like
a failed start; the next command starts a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from aw_action.ai.credentials import withheld_variables
from aw_action.environment.tool_env_table import NEVER_PREFIXES
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement import landlock, seccomp, spawn_server
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement
from aw_action.security.confinement.served import RequestNotSent, ServedProcess, SpawnServer, Stdio
from aw_action.security.confinement.tool_env import GITHUB_TOKEN_VARS, is_withheld_name

DEVNULL = subprocess.DEVNULL
PIPE = subprocess.PIPE
Running = subprocess.Popen[bytes]
"""A process ``run`` started."""
Started = Callable[[Running], None]
"""What ``run`` tells its caller once the process runs (a caller on another thread may end it)."""
STDOUT = subprocess.STDOUT
Popen = subprocess.Popen
Stream = int | IO[Any] | None
Process = asyncio.subprocess.Process | ServedProcess
"""What ``start`` returns: ``pid``, ``returncode``, ``wait()``."""
SERVER_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
MAX_IDLE_SERVERS = 4
"""Servers kept beyond this many (oldest first, idle ones only) are closed: a process hosting
many runs (the tests) does not collect one per confinement it ever saw."""


@dataclass(frozen=True)
class Launch:
    """Who a child runs as, with what, where, and how confined."""

    env: Mapping[str, str]
    cwd: str | Path
    identity: ToolIdentity | None = None
    confinement: Confinement | None = None
    pass_fds: tuple[int, ...] = ()
    granted: frozenset[str] = frozenset()
    """Variables ``env`` may hold although their names say "credential": the ones an MCP
    server's config grants it by name (``aw_action/mcp/config.grant_problem`` decided; never a
    row of the credential table, ``ACTIONS_*`` or ``INPUT_*``, which the backstop still drops)."""


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
    """The exec wrapper as one program: ``seccomp.py`` (the filter's table and assembly), then
    ``landlock.py`` (Landlock, ``no_new_privs``, ``main``), both standard library only."""
    files = (Path(seccomp.__file__), Path(landlock.__file__))
    return "\n".join(file.read_text(encoding="utf-8") for file in files)


@functools.cache
def server_source() -> str:
    return Path(spawn_server.__file__).read_text(encoding="utf-8")


def command(argv: Sequence[str], launch: Launch) -> list[str]:
    """``argv`` behind the exec wrapper when ``launch`` is confined."""
    if launch.confinement is None:
        return list(argv)
    spec = launch.confinement.wrapper_spec()
    unset = [] if "LC_CTYPE" in launch.env else ["unset=LC_CTYPE"]
    return [helper_python(), "-I", "-S", "-c", wrapper_source(), *unset, *spec, *argv]


def child_env(env: Mapping[str, str], granted: frozenset[str] = frozenset()) -> dict[str, str]:
    """``env`` without any credential-named variable (the backstop; see the module docstring),
    but for the ``granted`` names that are no harness credential."""

    def passes(name: str) -> bool:
        if name in GITHUB_TOKEN_VARS or not is_withheld_name(name):
            return True
        return name in granted and name not in withheld_variables() and not name.upper().startswith(NEVER_PREFIXES)

    return {k: v for k, v in env.items() if passes(k)}


def _kwargs(launch: Launch) -> dict[str, Any]:
    identity = launch.identity.popen_kwargs() if launch.identity is not None else {}
    return {
        "env": child_env(launch.env, launch.granted),
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
) -> Process:
    """``popen`` for asyncio (the caller awaits ``wait()``); a confined command whose streams
    are descriptors or ``DEVNULL`` (``STDOUT`` for stderr) starts through its spawn server."""
    served = _served_stdio(stdin, stdout, stderr)
    if launch.confinement is not None and not launch.pass_fds and served is not None:
        fds, stdio = served
        for attempt in range(2):
            server = _server(launch.identity, launch.confinement)
            try:
                return await server.run(argv, child_env(launch.env), os.fspath(launch.cwd), fds, stdio, new_session)
            except RequestNotSent:
                # a server that died since its last command (killed at a run's end) never had the
                # request: the command did not start, and a new server starts it
                if attempt:
                    raise
    full = command(argv, launch)
    return await asyncio.create_subprocess_exec(
        *full, stdin=stdin, stdout=stdout, stderr=stderr, start_new_session=new_session, **_kwargs(launch)
    )


def process_group(proc: Process) -> int | None:
    """The process group of a command ``start`` started, to kill it (None: none of ours)."""
    return proc.group if isinstance(proc, ServedProcess) else proc.pid


def _served_stdio(stdin: Stream, stdout: Stream, stderr: Stream) -> tuple[list[int], Stdio] | None:
    """The descriptors to pass and what each stream is, for a spawn server; None when a stream
    is one it cannot give (a new pipe, or the harness's own)."""
    fds: list[int] = []

    def one(stream: Stream, same_as_stdout: bool = False) -> int | None:
        if stream == DEVNULL:
            return None
        if same_as_stdout and stream == STDOUT:
            return -1
        fd = stream if isinstance(stream, int) else stream.fileno() if stream is not None else -1
        if fd < 0:
            raise LookupError
        fds.append(fd)
        return len(fds) - 1

    try:
        stdio = (one(stdin), one(stdout), one(stderr, same_as_stdout=True))
    except LookupError:
        return None
    return fds, stdio


_servers: dict[tuple[ToolIdentity | None, Confinement], SpawnServer] = {}
_servers_lock = threading.Lock()


def _server(identity: ToolIdentity | None, confinement: Confinement) -> SpawnServer:
    """The running spawn server of this user and confinement, started now if there is none."""
    key = (identity, replace(confinement, source=""))  # the source only words messages
    with _servers_lock:
        server = _servers.pop(key, None)
        if server is not None and server.alive and server.proc.poll() is not None:
            server.close("it ended")  # killed at a run's end, its socket not yet seen closed
        if server is None or not server.alive:
            idle = [k for k, s in _servers.items() if not s.alive or not s.busy]
            for old in idle[: max(0, len(_servers) - MAX_IDLE_SERVERS + 1)]:
                _servers.pop(old).close("too many idle spawn servers")
            server = _start_server(identity, confinement)
        _servers[key] = server  # the most recently used last
        return server


def prestart(identity: ToolIdentity | None, confinement: Confinement) -> None:
    """Start the spawn server of this user and confinement now, if none runs: the first command
    then waits for no interpreter start (about 30 ms, spent on another core while the run's start
    goes on). A server that cannot start now is left to the first command to report."""
    with contextlib.suppress(OSError):
        _server(identity, confinement)


def _start_server(identity: ToolIdentity | None, confinement: Confinement) -> SpawnServer:
    ours, theirs = socket.socketpair()
    try:
        launch = Launch(SERVER_ENV, "/", identity, confinement, pass_fds=(theirs.fileno(),))
        argv = [helper_python(), "-I", "-S", "-c", server_source(), str(theirs.fileno())]
        proc = popen(argv, launch, stdout=DEVNULL, stderr=PIPE, new_session=True)
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    return SpawnServer(proc, ours)


def kill_session(proc: Running) -> None:
    """SIGKILL the session ``proc`` leads (``new_session``: a filter or hook it started included),
    unless ``proc`` was reaped: until then its id, the session's, is still its own."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def run(
    argv: Sequence[str],
    launch: Launch,
    *,
    timeout_s: float,
    input: bytes | None = None,
    stdout: Stream = PIPE,
    started: Started | None = None,
) -> Finished:
    """Run to completion in a session of its own; on timeout the whole session is killed
    (a filter or hook the command started included) and ``timed_out`` is set. ``started`` is
    told the process once it runs (a caller on another thread may kill its session sooner)."""
    proc = popen(
        argv, launch, stdin=PIPE if input is not None else DEVNULL, stdout=stdout, stderr=PIPE, new_session=True
    )
    if started is not None:
        started(proc)
    try:
        out, err = proc.communicate(input, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        kill_session(proc)
        out, err = proc.communicate()
        return Finished(proc.returncode, out or b"", err or b"", timed_out=True)
    return Finished(proc.returncode, out or b"", err or b"")
