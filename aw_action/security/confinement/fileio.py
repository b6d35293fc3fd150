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

When the tools are confined (``security/confinement/sandbox.py``), the helper starts through the same exec
wrapper as ``bash`` (``security/confinement/spawn.py``): in ``read-only`` it cannot open anything for
writing, in ``workspace-write`` only inside the workspace and the run's temp folder. It is then
used even when the tools run as the harness's own user.

Contract of ``open_as``: like ``os.open`` with the tools' user's rights; errors are ``OSError``
with the errno the open got (``FileNotFoundError``, ``PermissionError``, ...) and ``filename``
set; a helper that has not answered after ``timeout_s`` is killed (``OSError(ETIMEDOUT)``); the
helper gets no environment but ``PATH`` and ``LANG``: no credential reaches it.
"""

from __future__ import annotations

import errno
import os
import socket
from pathlib import Path

from aw_action.security.confinement import spawn
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement
from aw_action.security.confinement.spawn import helper_python

__all__ = ["helper_python", "needs_helper", "open_as"]

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


def needs_helper(identity: ToolIdentity | None, confinement: Confinement | None) -> bool:
    """Whether opening a file for the tools takes the helper: another user, or a confinement."""
    return identity is not None or (confinement is not None and confinement.mode != "full")


def open_as(
    path: Path,
    flags: int,
    mode: int,
    identity: ToolIdentity | None,
    *,
    confinement: Confinement | None = None,
    make_parents: bool = False,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> int:
    """``os.open(path, flags, mode)`` done by ``identity`` (``None``: the harness's own user),
    inside ``confinement``; returns the descriptor (ours to close). ``make_parents`` creates the
    missing parent folders first, as that user."""
    ours, theirs = socket.socketpair()
    try:
        args = [os.fspath(path), str(flags), str(mode), "1" if make_parents else "0", str(theirs.fileno())]
        launch = spawn.Launch(
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
            identity=identity,
            confinement=confinement,
            pass_fds=(theirs.fileno(),),
        )
        proc = spawn.popen(
            [helper_python(), "-I", "-S", "-c", _HELPER, *args], launch, stdout=spawn.DEVNULL, stderr=spawn.PIPE
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
