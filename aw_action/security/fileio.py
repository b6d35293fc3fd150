"""File I/O for the read, write and edit tools, done as the tools' user.

Why a helper process: the alternatives inside the harness process do not hold. A thread with
``setfsuid`` keeps ``CAP_SYS_PTRACE`` and, worse, ``/proc/self`` is still the harness, so
``read /proc/self/environ`` would return the credentials whatever the fsuid; permission checks
done by hand race with symlink swaps. A short-lived ``python -I -S`` process started with
``user=``/``group=``/``extra_groups=[]`` gets exactly the kernel's checks for that user, its
``/proc/self`` is itself, and it can be killed when a FIFO or a device never ends. It costs one
interpreter start per call (about 10-20 ms), small next to a model turn.

Contract (both functions, with or without an identity):
- errors are ``OSError`` with the errno the operation got (``FileNotFoundError``,
  ``IsADirectoryError``, ``PermissionError``, ...), ``filename`` set, so callers keep their
  ``except`` clauses;
- ``read_bytes(max_bytes=n)`` returns at most ``n + 1`` bytes (one more than asked tells the
  caller the file is longer) and never reads further;
- a call that has not finished after ``timeout_s`` is killed and raises ``OSError(ETIMEDOUT)``;
- the helper gets no environment but ``PATH`` and ``LANG``: no credential reaches it.
"""

from __future__ import annotations

import errno
import functools
import os
import subprocess
import sys
from pathlib import Path

from aw_action.security.identity import ToolIdentity

DEFAULT_TIMEOUT_S = 30.0
_FAILED = 3

_HELPER = r"""
import os, sys
op, path = sys.argv[1], os.fsencode(sys.argv[2])
try:
    if op == "read":
        limit = int(sys.argv[3])
        out = sys.stdout.buffer
        with open(path, "rb") as fh:
            left = limit + 1 if limit >= 0 else -1
            while left != 0:
                chunk = fh.read(65536 if left < 0 else min(65536, left))
                if not chunk:
                    break
                out.write(chunk)
                left = left - len(chunk) if left > 0 else left
        out.flush()
    else:
        data = sys.stdin.buffer.read()
        if sys.argv[3] == "1":
            os.makedirs(os.path.dirname(path) or b".", exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)
except OSError as exc:
    sys.stderr.write(f"{exc.errno or 0}\n{exc.strerror or exc}")
    sys.exit(3)
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


def _run(identity: ToolIdentity, args: list[str], data: bytes | None, path: Path, timeout_s: float) -> bytes:
    try:
        proc = subprocess.run(
            [helper_python(), "-I", "-S", "-c", _HELPER, *args],
            input=data if data is not None else b"",
            capture_output=True,
            timeout=timeout_s,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
            cwd="/",
            **identity.popen_kwargs(),
        )
    except subprocess.TimeoutExpired:
        raise OSError(errno.ETIMEDOUT, f"gave up after {timeout_s:g} s (a FIFO or a device?)", str(path)) from None
    if proc.returncode == _FAILED:
        code, _, message = proc.stderr.decode(errors="replace").partition("\n")
        raise OSError(int(code) if code.isdigit() else errno.EIO, message, str(path))
    if proc.returncode != 0:
        detail = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise OSError(errno.EIO, f"file helper failed: {detail[0]}", str(path))
    out: bytes = proc.stdout
    return out


def read_bytes(
    path: Path, identity: ToolIdentity | None, *, max_bytes: int | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
) -> bytes:
    """The file's bytes (at most ``max_bytes + 1`` of them), read as ``identity``."""
    if identity is None:
        with open(path, "rb") as fh:
            return fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    limit = -1 if max_bytes is None else max_bytes
    return _run(identity, ["read", os.fspath(path), str(limit)], None, path, timeout_s)


def write_bytes(
    path: Path,
    data: bytes,
    identity: ToolIdentity | None,
    *,
    make_parents: bool = True,
    timeout_s: float = DEFAULT_TIMEOUT_S,
) -> None:
    """Create or truncate ``path`` and write ``data``, as ``identity``; parents are created
    (as that user) when ``make_parents``."""
    if identity is None:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return
    _run(identity, ["write", os.fspath(path), "1" if make_parents else "0"], data, path, timeout_s)
