"""The harness's side of a spawn server (``spawn_server.py``): requests out, answers in.

``SpawnServer`` wraps one running server (its process and our end of the socket); ``security/
spawn.py`` starts servers and keeps one per tools' user and confinement. ``run`` sends a request
(under a lock) and the answers are read on the event loop of its caller, as the socket becomes
readable (``loop.add_reader``: no thread of the server's own, no hand-off between threads for a
command's start or its end); a later ``run`` from another loop (a new run in the same process)
moves the reading there. ``ServedProcess`` is what the caller gets back, an
``asyncio.subprocess.Process`` as far as the bash tool is concerned (``pid``, ``returncode``,
``wait()``).

What the server says is not trusted further than the server's own rights reach: it runs as the
tools' user, inside the confinement, and the agent's commands run as that user too. So an answer
is bounded in size and parsed strictly (anything else closes the server), and the one thing the
harness does with a pid it was told, killing its process group, it does only for a process the
kernel says is that server's child and the leader of its own group (``ServedProcess.group``).

A server that dies, closes its socket or stops answering is closed for good (its process
killed): requests waiting for it fail with ``OSError``, commands whose end it had not reported
yet end as killed (``-SIGKILL``), and the next command starts a new server.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import IO, Any, Protocol

from aw_action.security.confinement import spawn_server

HEADER = spawn_server.HEADER
MAX_ANSWER = 4096
START_TIMEOUT_S = 10.0
"""How long a command may take to start before the server is declared stuck."""


class ServerProcess(Protocol):
    """The server's own process, as ``spawn.popen`` started it (a ``subprocess.Popen``)."""

    pid: int
    returncode: int | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...


Stdio = tuple[int | None, int | None, int | None]
"""stdin, stdout, stderr: an index into the passed descriptors, None (/dev/null), or for stderr
-1 (the same as stdout)."""


class ServedProcess:
    """A command a spawn server started (the part of ``asyncio.subprocess.Process`` bash uses)."""

    def __init__(self, pid: int, server: SpawnServer, ended: Future[int]) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self._server = server
        self._ended = ended
        ended.add_done_callback(self._set_returncode)

    def _set_returncode(self, ended: Future[int]) -> None:
        if not ended.cancelled():
            self.returncode = ended.result()

    async def wait(self) -> int:
        """The exit code (``-N``: killed by signal N). Cancelling a wait leaves the command be."""
        return await asyncio.shield(_awaitable(self._ended))

    @property
    def group(self) -> int | None:
        """The command's process group, to kill: its pid while the kernel says it is a child of
        the server leading its own group (a session of its own); None otherwise (it has been
        reaped, or the pid was never the server's to give)."""
        try:
            text = Path(f"/proc/{self.pid}/stat").read_text()
        except OSError:
            return None
        fields = text[text.rfind(")") + 2 :].split()
        if len(fields) < 3 or int(fields[1]) != self._server.pid or int(fields[2]) != self.pid:
            return None
        return self.pid


class RequestNotSent(BrokenPipeError):
    """The server was closed, or closed while the request was sent: it never had the whole request,
    so the command did not start (a caller may ask a new server)."""


class SpawnServer:
    """One running spawn server. ``start`` may send a request from any thread; its answers are
    read on the event loop of the latest ``run`` (which is how commands are started)."""

    def __init__(self, proc: ServerProcess, channel: socket.socket) -> None:
        self.proc = proc
        self.pid = proc.pid
        self._channel = channel
        self._send_lock = threading.Lock()
        self._lock = threading.Lock()
        self._next_id = 0
        self._started: dict[int, Future[int]] = {}
        self._ended: dict[int, Future[int]] = {}
        self._closed = False
        self.reason = ""
        """Why it was closed (for the error of a request that found it closed)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop whose reader reads the answers (the latest ``run``'s)."""
        self._pending = bytearray()
        """Answer bytes read but not yet a whole line."""

    @property
    def alive(self) -> bool:
        return not self._closed

    @property
    def busy(self) -> bool:
        """Whether a command it started has not ended yet (or one is starting)."""
        with self._lock:
            return bool(self._started or self._ended)

    def start(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: str, fds: Sequence[int], stdio: Stdio, session: bool
    ) -> tuple[Future[int], Future[int]]:
        """Ask for ``argv`` to be started; returns the futures of its pid and of its exit code.
        ``OSError`` at once when the server is closed or the request cannot be sent."""
        with self._lock:
            if self._closed:
                raise RequestNotSent(errno.EPIPE, f"spawn server closed: {self.reason}")
            ident = self._next_id = self._next_id + 1
            started: Future[int] = Future()
            ended: Future[int] = Future()
            self._started[ident], self._ended[ident] = started, ended
        request = {"id": ident, "argv": list(argv), "env": dict(env), "cwd": cwd, "session": session, "stdio": stdio}
        payload = json.dumps(request).encode()
        try:
            with self._send_lock:
                header = HEADER.pack(len(payload))
                rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack(f"{len(fds)}i", *fds))] if fds else []
                self._channel.sendmsg([header], rights)
                self._channel.sendall(payload)
        except OSError as exc:
            self.close(f"could not send a request: {exc}")
            raise RequestNotSent(errno.EPIPE, f"spawn server closed: {self.reason}") from None
        return started, ended

    async def run(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: str, fds: Sequence[int], stdio: Stdio, session: bool
    ) -> ServedProcess:
        """``start``, awaited until the command runs; a server that has not answered within
        ``START_TIMEOUT_S`` is closed (``OSError``). The answers are read on this loop from now on."""
        self._attach(asyncio.get_running_loop())
        started, ended = self.start(argv, env, cwd, fds, stdio, session)
        try:
            pid = await asyncio.wait_for(asyncio.shield(_awaitable(started)), START_TIMEOUT_S)
        except TimeoutError:
            self.close(f"no answer within {START_TIMEOUT_S:g} s")
            raise OSError(errno.ETIMEDOUT, f"spawn server closed: {self.reason}") from None
        except asyncio.CancelledError:  # nobody will wait for it: kill it as soon as it runs
            started.add_done_callback(lambda done: self._kill_started(done, ended))
            raise
        return ServedProcess(pid, self, ended)

    def _kill_started(self, started: Future[int], ended: Future[int]) -> None:
        if started.exception() is None:
            group = ServedProcess(started.result(), self, ended).group
            if group is not None:
                with contextlib.suppress(OSError):
                    os.killpg(group, signal.SIGKILL)

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Read the answers on ``loop`` (called on it); a loop read before lets go of the socket."""
        if self._loop is loop or self._closed:
            return
        old, self._loop = self._loop, loop
        if old is not None and not old.is_closed():
            _drop_reader(old, self._channel)
        loop.add_reader(self._channel.fileno(), self._readable)

    def _readable(self) -> None:
        """The socket has answers (or its end): read what is there without blocking; each whole
        line is one answer, at most ``MAX_ANSWER`` bytes, parsed strictly."""
        try:
            data = self._channel.recv(65536, socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._stop_reading()
            self.close(f"a bad answer ({type(exc).__name__}: {exc})")
            return
        if not data:  # the server is gone: why, once its process has ended (up to 1 s: off the loop)
            self._stop_reading()
            if not self._closed:
                threading.Thread(target=lambda: self.close("it ended" + self._exit_detail()), daemon=True).start()
            return
        pending = self._pending
        pending += data
        try:
            start = 0
            while (end := pending.find(b"\n", start)) >= 0:
                if end + 1 - start > MAX_ANSWER:
                    raise ValueError("an answer that is too long or cut")
                self._answer(json.loads(pending[start : end + 1]))
                start = end + 1
            del pending[:start]
            if len(pending) > MAX_ANSWER:
                raise ValueError("an answer that is too long or cut")
        except (ValueError, TypeError, KeyError) as exc:
            self._stop_reading()
            self.close(f"a bad answer ({type(exc).__name__}: {exc})")

    def _stop_reading(self) -> None:
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            _drop_reader(loop, self._channel)

    def _answer(self, answer: dict[str, Any]) -> None:
        ident = answer["id"]
        with self._lock:
            if "pid" in answer and ident in self._started:
                _settle(self._started.pop(ident), _whole(answer["pid"]))
            elif "errno" in answer and ident in self._started:
                self._started.pop(ident).set_exception(OSError(_whole(answer["errno"]), str(answer["error"])))
                self._ended.pop(ident, None)
            elif "exit" in answer and ident in self._ended and ident not in self._started:
                _settle(self._ended.pop(ident), _whole(answer["exit"]))
            else:
                raise ValueError(f"an answer to no request: {answer!r:.200}")

    def _exit_detail(self) -> str:
        deadline = time.monotonic() + 1.0
        while self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        stderr = self.proc.stderr
        text = ""
        if stderr is not None:
            with contextlib.suppress(OSError, ValueError):
                os.set_blocking(stderr.fileno(), False)
                text = (stderr.read(1024) or b"").decode(errors="replace").strip()
        code = self.proc.returncode
        return (f" (exit {code})" if code is not None else "") + (f": {text}" if text else "")

    def close(self, reason: str) -> None:
        """Close the server for good: kill it, fail what waits for it (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed, self.reason = True, reason
            started, self._started = self._started, {}
            ended, self._ended = self._ended, {}
        loop, self._loop = self._loop, None
        if loop is not None and not loop.is_closed():
            if _running_loop() is loop:
                _drop_reader(loop, self._channel)
            else:
                with contextlib.suppress(RuntimeError):  # closed meanwhile: its reader went with it
                    loop.call_soon_threadsafe(_drop_reader, loop, self._channel)
        with contextlib.suppress(OSError):
            self._channel.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.proc.kill()  # not by pid: Popen knows when the pid is no longer its child's
        for future in started.values():
            with contextlib.suppress(Exception):
                future.set_exception(OSError(errno.EPIPE, f"spawn server closed: {reason}"))
        for future in ended.values():
            _settle(future, -signal.SIGKILL)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _drop_reader(loop: asyncio.AbstractEventLoop, channel: socket.socket) -> None:
    with contextlib.suppress(ValueError, OSError, RuntimeError):  # already gone, or the loop closed
        loop.remove_reader(channel.fileno())


def _awaitable(future: Future[int]) -> asyncio.Future[int]:
    """``future`` on the running loop. Settled on this loop's thread (the answers are read
    there), the result is passed on at once; settled on another thread (a server closed from
    one), through ``call_soon_threadsafe``. ``asyncio.wrap_future`` would always go that way."""
    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[int] = loop.create_future()

    def settle(done: Future[int]) -> None:
        if waiter.done():
            return
        if done.cancelled():
            waiter.cancel()
        elif (error := done.exception()) is not None:
            waiter.set_exception(error)
        else:
            waiter.set_result(done.result())

    def copy(done: Future[int]) -> None:
        if _running_loop() is loop:
            settle(done)
        else:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
                loop.call_soon_threadsafe(settle, done)

    future.add_done_callback(copy)
    return waiter


def _whole(value: Any) -> int:
    if type(value) is not int:
        raise ValueError(f"not a whole number: {value!r:.50}")
    return value


def _settle(future: Future[int], value: int) -> None:
    with contextlib.suppress(Exception):  # already settled (a cancelled waiter)
        future.set_result(value)
