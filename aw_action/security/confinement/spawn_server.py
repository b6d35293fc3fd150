"""The spawn server: one confined process that starts a run's confined commands, so that each one
costs a fork and an exec instead of an interpreter start (the exec wrapper's ~15 ms of CPU).

Standard library only, on purpose: ``security/confinement/spawn.py`` starts this file's source as
``python -I -S -c <source> <fd>`` behind the exec wrapper (``landlock.py``), as the tools' user,
in a session of its own. So the server runs with ``no_new_privs`` and the Landlock domain of its
confinement before it reads a single request, and every process it starts inherits both (they
survive fork and exec and can only be narrowed): the kernel enforces the mode for each command
exactly as when the wrapper started it. The server is not dumpable (no process of its user can
ptrace it or read its descriptors), holds nothing but what the harness sends it, and closes every
descriptor but the command's three in the command.

Protocol, on the Unix stream socket ``fd`` (a socketpair with the harness):

- a request is a 4-byte big-endian length, sent with the descriptors it passes (``SCM_RIGHTS``),
  then that many bytes of JSON: ``{"id", "argv", "env", "cwd", "session", "stdio"}``; ``stdio``
  says for stdin, stdout and stderr which passed descriptor (by index) it is, ``null`` for
  ``/dev/null``, or for stderr ``-1``: the same as stdout;
- the server answers each request with one JSON line: ``{"id", "pid"}`` once the command runs,
  or ``{"id", "errno", "error"}`` when it could not start (a missing program, a bad cwd); and,
  for a started command, ``{"id", "exit"}`` when it has ended (``-N``: killed by signal N);
- the passed descriptors are closed in the server as soon as the command has started.

The server is the child subreaper of its commands: a process a command leaves behind (``cmd &``,
``setsid``, a double fork) is re-parented to the server when its parent exits, and one reaper
thread collects every child's exit as it dies (``waitpid(-1)``), reporting a command's and
dropping an orphan's. No zombie piles up against the process budget, and no exit status is
taken from anyone: the server's children are only ever waited for there.

When the socket closes (the harness is gone or closed it), the server exits; the commands it
started run on, re-parented to the harness (the subreaper above the server), which kills them at
the end of the run. Any malformed request ends the server with exit 3.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import socket
import struct
import subprocess
import sys
import threading
from typing import Any

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
MAX_FDS = 3
HEADER = struct.Struct(">I")
MAX_REQUEST = 64 * 1024 * 1024


def _receive_exactly(channel: socket.socket, size: int, fds: list[int]) -> bytes | None:
    """``size`` bytes from ``channel``, and any descriptors that came with them into ``fds``;
    None at end of stream."""
    data = b""
    while len(data) < size:
        chunk, ancillary, _, _ = channel.recvmsg(
            size - len(data), socket.CMSG_SPACE(MAX_FDS * 4), socket.MSG_CMSG_CLOEXEC
        )
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += list(struct.unpack(f"{len(payload) // 4}i", payload[: len(payload) // 4 * 4]))
        if not chunk:
            return None
        data += chunk
    return data


def _stdio(request: dict[str, Any], fds: list[int]) -> tuple[int, int, int]:
    def pick(index: int | None, default: int) -> int:
        return default if index is None else subprocess.STDOUT if index == -1 else fds[index]

    stdin, stdout, stderr = request["stdio"]
    return pick(stdin, subprocess.DEVNULL), pick(stdout, subprocess.DEVNULL), pick(stderr, subprocess.DEVNULL)


class Server:
    def __init__(self, channel: socket.socket) -> None:
        self.channel = channel
        self.lock = threading.Lock()
        self.children = threading.Condition()
        """Held while a command starts and while a reaped pid is looked up: the reaper never
        takes the exit of a command before the command is known as ours."""
        self.commands: dict[int, tuple[int, subprocess.Popen[bytes]]] = {}

    def reply(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message) + "\n").encode()
        with self.lock:
            self.channel.sendall(data)

    def start(self, request: dict[str, Any], fds: list[int]) -> None:
        stdin, stdout, stderr = _stdio(request, fds)
        with self.children:
            try:
                proc = subprocess.Popen(
                    request["argv"],
                    env=request["env"],
                    cwd=request["cwd"],
                    stdin=stdin,
                    stdout=stdout,
                    stderr=stderr,
                    start_new_session=bool(request["session"]),
                    close_fds=True,
                )
            except OSError as exc:
                self.reply({"id": request["id"], "errno": exc.errno or 0, "error": exc.strerror or str(exc)})
                return
            finally:
                for fd in fds:
                    os.close(fd)
            self.commands[proc.pid] = (request["id"], proc)
            self.reply({"id": request["id"], "pid": proc.pid})
            self.children.notify()

    def reap(self) -> None:
        """Collect every child's exit as it dies: a command's is reported, an orphan's (a process
        a command left behind, re-parented here: the server is their subreaper) is dropped, so
        none lingers as a zombie counting against the process budget."""
        while True:
            try:
                pid, status = os.waitpid(-1, 0)
            except ChildProcessError:
                with self.children:
                    self.children.wait(0.5)
                continue
            except InterruptedError:
                continue
            with self.children:
                ident, proc = self.commands.pop(pid, (None, None))
            if ident is None or proc is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            proc.returncode = code  # subprocess never waits for it again
            with contextlib.suppress(OSError):  # the harness is gone
                self.reply({"id": ident, "exit": code})

    def serve(self) -> None:
        while True:
            fds: list[int] = []
            header = _receive_exactly(self.channel, HEADER.size, fds)
            if header is None:
                return
            (length,) = HEADER.unpack(header)
            if length > MAX_REQUEST:
                raise ValueError(f"request of {length} bytes")
            payload = _receive_exactly(self.channel, length, fds)
            if payload is None:
                return
            self.start(json.loads(payload), fds)


def main(argv: list[str]) -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        sys.stderr.write("aw-harness spawn server: could not make itself non-dumpable\n")
        os._exit(3)
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.stderr.write("aw-harness spawn server: could not become the commands' subreaper\n")
        os._exit(3)
    channel = socket.socket(fileno=int(argv[0]))
    server = Server(channel)
    threading.Thread(target=server.reap, daemon=True).start()
    try:
        server.serve()
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        sys.stderr.write(f"aw-harness spawn server: {type(exc).__name__}: {exc}\n")
        os._exit(3)
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1:])
