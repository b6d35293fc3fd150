"""Read-only means no write that outlives the command (issue 29): Landlock has no right for a
file's mode, owner, times, extended attributes or inode flags, and none for the kernel keyring, so
the wrapper's seccomp filter refuses them (EPERM) in ``read-only``; a syscall number past the
filter's table fails with ENOSYS. In ``workspace-write`` they stay allowed (neither Landlock nor
seccomp can limit them to folders). One test per rule group, each through the real wrapper."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from aw_action.security.confinement import landlock, spawn
from aw_action.security.confinement.sandbox import Confinement

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not landlock.socket_filter_supported(),
    reason="needs seccomp on x86_64 or aarch64",
)
ABI = landlock.kernel_abi()
COLUMN = 0 if os.uname().machine == "x86_64" else 1
NR = {name: numbers[COLUMN] for name, numbers in landlock.SYSCALLS.items()}
PROBE = r"""
import ctypes, errno, fcntl, json, os, struct, sys
target = sys.argv[1]
nr = json.loads(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
out = {}
def attempt(name, call):
    try:
        call()
        out[name] = 0
    except OSError as exc:
        out[name] = exc.errno
def raw(number, *args):
    def call():
        if libc.syscall(number, *args) < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
    return call
fd = os.open(target, os.O_RDONLY)
path = target.encode()
AT_FDCWD = -100
"""


def probe(tmp_path: Path, mode: str, body: str) -> dict[str, int]:
    """Run ``PROBE + body`` confined as ``mode`` on a file in a writable workspace; the errno of
    each attempt (0: it succeeded)."""
    workspace = tmp_path / "ws"
    workspace.mkdir(exist_ok=True)
    target = workspace / "file.txt"
    target.write_text("x")
    writable = (str(workspace),) if mode == "workspace-write" else ()
    confinement = Confinement(mode, tcp=False, writable=writable, abi=ABI, socket_filter=True)  # type: ignore[arg-type]
    launch = spawn.Launch(env={"PATH": "/usr/bin:/bin"}, cwd=workspace, confinement=confinement)
    script = PROBE + body + "\nprint(json.dumps(out))\n"
    done = spawn.run([sys.executable, "-I", "-c", script, str(target), json.dumps(NR)], launch, timeout_s=30)
    assert done.returncode == 0, done.stderr.decode()
    result: dict[str, int] = json.loads(done.stdout)
    return result


MODES = r"""
attempt("chmod", lambda: os.chmod(target, 0o600))
attempt("fchmod", lambda: os.fchmod(fd, 0o600))
attempt("fchmodat2", raw(nr["fchmodat2"], AT_FDCWD, path, 0o600, 0))
attempt("chown", lambda: os.chown(target, os.getuid(), os.getgid()))
attempt("lchown", lambda: os.lchown(target, os.getuid(), os.getgid()))
attempt("fchown", lambda: os.fchown(fd, os.getuid(), os.getgid()))
attempt("utime", lambda: os.utime(target, (1, 1)))
attempt("futimens", lambda: os.utime(fd, (1, 1)))
"""


def test_read_only_refuses_mode_owner_and_time_changes_and_workspace_write_allows_them(tmp_path: Path) -> None:
    assert probe(tmp_path, "read-only", MODES) == dict.fromkeys(
        ("chmod", "fchmod", "fchmodat2", "chown", "lchown", "fchown", "utime", "futimens"), 1
    )
    allowed = probe(tmp_path, "workspace-write", MODES)
    assert all(code == 0 for code in allowed.values()), allowed


XATTRS = r"""
attempt("setxattr", lambda: os.setxattr(target, "user.aw", b"1"))
attempt("fsetxattr", lambda: os.setxattr(fd, "user.aw", b"1"))
attempt("removexattr", lambda: os.removexattr(target, "user.aw"))
attempt("setxattrat", raw(nr["setxattrat"], AT_FDCWD, path, 0, b"user.aw", None, 0))
attempt("removexattrat", raw(nr["removexattrat"], AT_FDCWD, path, 0, b"user.aw"))
attempt("file_setattr", raw(nr["file_setattr"], AT_FDCWD, path, None, 0, 0))
attempt("FS_IOC_SETFLAGS", lambda: fcntl.ioctl(fd, 0x40086602, struct.pack("l", 0)))
attempt("FS_IOC_FSSETXATTR", lambda: fcntl.ioctl(fd, 0x401C5820, bytes(28)))
attempt("FS_IOC_GETFLAGS", lambda: fcntl.ioctl(fd, 0x80086601, struct.pack("l", 0)))
"""


def test_read_only_refuses_every_xattr_setter_and_inode_flag_ioctl(tmp_path: Path) -> None:
    refused = probe(tmp_path, "read-only", XATTRS)
    setters = {k: v for k, v in refused.items() if k != "FS_IOC_GETFLAGS"}
    assert setters == dict.fromkeys(setters, 1), refused
    assert refused["FS_IOC_GETFLAGS"] != 1, "reading the flags is no change"
    allowed = probe(tmp_path, "workspace-write", XATTRS)
    through = ("setxattr", "fsetxattr", "removexattr", "FS_IOC_FSSETXATTR")  # the rest: the file system's answer
    assert [allowed[k] for k in through] == [0, 0, 0, 0], allowed


KEYRING = r"""
KEY_SPEC_PROCESS_KEYRING, KEYCTL_GET_KEYRING_ID = -2, 0
attempt("add_key", raw(nr["add_key"], b"user", b"aw-test", b"x", 1, KEY_SPEC_PROCESS_KEYRING))
attempt("keyctl", raw(nr["keyctl"], KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1))
attempt("request_key", raw(nr["request_key"], b"user", b"aw-missing", None, 0))
"""


def test_read_only_refuses_the_keyring(tmp_path: Path) -> None:
    assert probe(tmp_path, "read-only", KEYRING) == {"add_key": 1, "keyctl": 1, "request_key": 1}
    allowed = probe(tmp_path, "workspace-write", KEYRING)
    assert allowed["keyctl"] != 1 and allowed["add_key"] != 1, allowed


BEYOND = r"""
attempt("table_end", raw(nr["table_end"]))
attempt("far", raw(nr["table_end"] + 100))
attempt("x32", raw(0x40000000 + 39))
"""


def test_a_syscall_beyond_the_table_fails_with_enosys(tmp_path: Path) -> None:
    NR["table_end"] = landlock.TABLE_END
    try:
        assert probe(tmp_path, "read-only", BEYOND) == {"table_end": 38, "far": 38, "x32": 13}
    finally:
        del NR["table_end"]
    program = landlock.seccomp_program(os.uname().machine, ["metadata"])
    enosys = program.index((landlock.BPF_RET_K, 0, 0, landlock.SECCOMP_RET_ERRNO | landlock.ENOSYS))
    assert program[enosys - 1] == (landlock.BPF_JGE_K, 0, 1, landlock.TABLE_END), "judged before any rule"


def test_the_metadata_rules_are_asked_for_only_in_read_only() -> None:
    read_only = Confinement("read-only", tcp=False, abi=ABI, socket_filter=True)
    write = Confinement("workspace-write", tcp=False, abi=ABI, socket_filter=True)
    assert "metadata=deny" in read_only.wrapper_spec() and "metadata=deny" not in write.wrapper_spec()
