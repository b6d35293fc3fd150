"""Opening files the agent names, without ever blocking and without surprises.

A path the model supplies may be anything: a FIFO with no writer (a plain ``open`` blocks
forever, and the thread with it, and the process cannot exit), ``/dev/zero`` (endless), a socket,
a terminal, a block device. The tools only read and write regular files:

- ``open_for_read`` opens with ``O_NONBLOCK | O_NOCTTY`` (a FIFO opens at once, a terminal does
  not become ours), then refuses anything that is not a regular file. ``O_NONBLOCK`` stays set:
  a special file under ``/proc`` that would block reports "try again" instead.
- ``open_for_write`` refuses an existing target that is not a regular file *before* anything is
  written or truncated (a FIFO without a reader, a socket, a device), then truncates.

With a tool identity (the tools run as another user, ``security/confinement/identity.py``) or a confinement
(``security/confinement/sandbox.py``), the open itself is done by the file helper as that user, inside that
confinement (``security/fileio.open_as``): the kernel checks that user's rights and the
sandbox's, and files and folders it creates are that user's. Reading and writing then use the
descriptor.

Errors are ``ToolError`` texts naming the path and what it is. A write the sandbox refuses says
so for certain, with what the mode forbids (``security/confinement/sandbox_denial.py``): the harness opened
the file and knows the confinement.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from aw_action.agent.tools import ToolError
from aw_action.security.confinement.fileio import needs_helper, open_as
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement
from aw_action.security.confinement.sandbox_denial import denial_line, forbids_write

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
REFUSALS = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
"""The errors a sandbox's refusal of a write comes as."""
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def _refuse(display: str, what: str, verb: str) -> ToolError:
    if what == "a directory":
        if verb == "read":
            return ToolError(f"{display} is a directory, not a file. Use bash (ls) to list it.")
        return ToolError(f"Could not {verb} {display}: it is a directory")
    return ToolError(f"Cannot {verb} {display}: it is {what}, not a regular file.")


def _open(
    path: Path, flags: int, identity: ToolIdentity | None, confinement: Confinement | None, make_parents: bool = False
) -> int:
    if needs_helper(identity, confinement):
        return open_as(path, flags, 0o666, identity, confinement=confinement, make_parents=make_parents)
    if make_parents:
        path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, flags, 0o666)


def open_for_read(
    path: Path, display: str, identity: ToolIdentity | None = None, confinement: Confinement | None = None
) -> int:
    """A read-only descriptor on the regular file ``path``; ``ToolError`` for anything else."""
    try:
        fd = _open(path, _READ_FLAGS, identity, confinement)
    except FileNotFoundError:
        raise ToolError(f"File not found: {display}") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket (or a device with nothing behind it)
            raise _refuse(display, "a socket", "read") from None
        raise ToolError(f"Could not read {display}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _refuse(display, kind_of(mode), "read")
    return fd


def open_for_write(
    path: Path,
    display: str,
    identity: ToolIdentity | None = None,
    confinement: Confinement | None = None,
    *,
    make_parents: bool = False,
) -> int:
    """A write descriptor on ``path``, created if missing (with its parent folders when
    ``make_parents``) and truncated; ``ToolError`` if it exists and is not a regular file
    (nothing is written or truncated then)."""
    try:
        fd = _open(path, _WRITE_FLAGS, identity, confinement, make_parents)
    except IsADirectoryError:
        raise _refuse(display, "a directory", "write") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a FIFO with no reader, or a socket
            with contextlib.suppress(OSError):
                raise _refuse(display, kind_of(os.stat(path).st_mode), "write") from None
            raise _refuse(display, "a FIFO or socket", "write") from None
        message = f"Could not write {display}: {exc.strerror or exc}"
        if exc.errno in REFUSALS and confinement is not None and forbids_write(confinement, path):
            message += f"\n{denial_line(confinement, certain=True)}"
        raise ToolError(message) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _refuse(display, kind_of(mode), "write")
    os.ftruncate(fd, 0)
    return fd


def refuse_if_read_only(confinement: Confinement | None, tool: str) -> None:
    """``ToolError`` when the file tools' sandbox is ``read-only`` (the helper could not open
    for writing anyway: this says why before trying)."""
    if confinement is not None and confinement.mode == "read-only":
        why = f" ({confinement.source})" if confinement.source else ""
        line = denial_line(confinement, certain=True)
        raise ToolError(f"{tool} refused: the sandbox is read-only here{why}; nothing was written.\n{line}")


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` completely (a regular file accepts every byte; ``O_NONBLOCK`` is moot)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
