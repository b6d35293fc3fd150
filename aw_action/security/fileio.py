"""Opening files for the read, write and edit tools as the tools' user.

Why a helper process: the alternatives inside the harness process do not hold. A thread with
``setfsuid`` keeps ``CAP_SYS_PTRACE`` and, worse, ``/proc/self`` is still the harness, so
``read /proc/self/environ`` would return the credentials whatever the fsuid; permission checks
done by hand race with symlink swaps. A short-lived ``python -I -S`` process started with
``user=``/``group=``/``extra_groups=[]`` gets exactly the kernel's checks for that user, and its
``/proc/self`` is itself. It only *opens* the file and hands the descriptor back over a Unix
socket (``SCM_RIGHTS``); the tool then reads or writes it in bounded, non-blocking steps
(``tools/fs.py``, ``tools/lines.py``). Files it creates, and parent folders, belong to that user.
It costs one interpreter start per call (about 10-20 ms), small next to a model turn.

Contract of ``open_as``: like ``os.open`` with the tools' user's rights; errors are ``OSError``
with the errno the open got (``FileNotFoundError``, ``PermissionError``, ...) and ``filename``
set; a helper that has not answered after ``timeout_s`` is killed (``OSError(ETIMEDOUT)``); the
helper gets no environment but ``PATH`` and ``LANG``: no credential reaches it.
"""

from __future__ import annotations

import errno
import functools
import os
import socket
import subprocess
import sys
from pathlib import Path

from aw_action.security.identity import ToolIdentity

DEFAULT_TIMEOUT_S = 30.0

_HELPER = r"""
import os, socket, sys
path, flags, mode, parents = os.fsencode(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
channel = socket.socket(fileno=int(sys.argv[5]))
try:
    if parents:
        os.makedirs(os.path.dirname(path) or b".", exist_ok=True)
    fd = os.open(path, flags, mode)
except OSError as exc:
    channel.sendall(f"{exc.errno or 0}\n{exc.strerror or exc}".encode())
    sys.exit(3)
socket.send_fds(channel, [b"ok"], [fd])
"""


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
    /opt/aw), else the system's ``python3`` (the helper needs nothing but the standard library)."""
    for candidate in (sys.executable, "/usr/bin/python3", "/usr/local/bin/python3"):
        if candidate and _world_executable(candidate):
            return candidate
    return sys.executable


def open_as(
    path: Path,
    flags: int,
    mode: int,
    identity: ToolIdentity,
    *,
    make_parents: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> int:
    """``os.open(path, flags, mode)`` done by ``identity``; returns the descriptor (ours to close).
    ``make_parents`` creates the missing parent folders first, as that user."""
    ours, theirs = socket.socketpair()
    try:
        args = [os.fspath(path), str(flags), str(mode), "1" if make_parents else "0", str(theirs.fileno())]
        proc = subprocess.Popen(
            [helper_python(), "-I", "-S", "-c", _HELPER, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
            pass_fds=(theirs.fileno(),),
            **identity.popen_kwargs(),
        )
        theirs.close()
        ours.settimeout(timeout_s)
        try:
            message, fds, _, _ = socket.recv_fds(ours, 4096, 1)
        except TimeoutError:
            proc.kill()
            proc.wait()
            raise OSError(errno.ETIMEDOUT, f"gave up after {timeout_s:g} s", str(path)) from None
        proc.wait(timeout=timeout_s)
    finally:
        ours.close()
        theirs.close()
    if fds:
        return fds[0]
    if proc.returncode == 3 and message:
        code, _, text = message.decode(errors="replace").partition("\n")
        raise OSError(int(code) if code.isdigit() else errno.EIO, text, str(path))
    detail = (proc.stderr.read().decode(errors="replace").strip().splitlines() if proc.stderr else [])[-1:]
    raise OSError(errno.EIO, f"file helper failed: {detail[0] if detail else f'exit {proc.returncode}'}", str(path))
