"""Files opened as the tools' user: the kernel's checks for that user, never the harness's.

``open_as`` only opens; the descriptor comes back to the harness, which reads or writes it in
bounded steps (``tools/fs.py``). ``read_as``/``write_as`` below do what the tools do with it."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from aw_action.agent.tools import ToolError
from aw_action.security.confinement.fileio import open_as
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.tools.fs import open_for_read, open_for_write, write_all


def read_bytes(path: Path, identity: ToolIdentity | None, max_bytes: int | None = None) -> bytes:
    flags = os.O_RDONLY | os.O_NONBLOCK
    fd = os.open(path, flags) if identity is None else open_as(path, flags, 0, identity)
    try:
        return os.read(fd, (max_bytes if max_bytes is not None else 1 << 20) + 1)
    finally:
        os.close(fd)


def write_bytes(path: Path, data: bytes, identity: ToolIdentity, make_parents: bool = True) -> None:
    fd = open_for_write(path, str(path), identity, make_parents=make_parents)
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


PLANTED = "sk-fileio-" + "Zq9" * 10


def test_in_process_reads_see_the_harness_environment(tool_user: ToolIdentity) -> None:
    """The hole the helper closes: read/write/edit running inside the harness read its /proc."""
    assert b"PATH=" in read_bytes(Path("/proc/self/environ"), None)


def test_the_helper_cannot_read_the_harness_proc_entries(tool_user: ToolIdentity) -> None:
    pid = os.getpid()
    for name in ("environ", "mem"):
        with pytest.raises(PermissionError):
            read_bytes(Path(f"/proc/{pid}/{name}"), tool_user)


def test_proc_self_in_the_helper_is_the_helper_and_holds_no_secret(
    monkeypatch: pytest.MonkeyPatch, tool_user: ToolIdentity
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", PLANTED)
    data = read_bytes(Path("/proc/self/environ"), tool_user)
    assert PLANTED.encode() not in data
    # the helper has exited by the time the descriptor is read: its environ reads empty, and
    # while it lived it held nothing but PATH and LANG
    assert {item.split(b"=")[0] for item in data.split(b"\0") if item} <= {b"LANG", b"PATH"}


def test_root_only_files_are_refused(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    secret = shared_tmp / "key.pem"
    secret.write_text(PLANTED)
    secret.chmod(0o600)
    with pytest.raises(PermissionError) as caught:
        read_bytes(secret, tool_user)
    assert caught.value.filename == str(secret)


def test_errors_keep_their_errno_class(user_dir: Path, tool_user: ToolIdentity) -> None:
    with pytest.raises(FileNotFoundError):
        read_bytes(user_dir / "missing.txt", tool_user)
    with pytest.raises(IsADirectoryError):
        read_bytes(user_dir, tool_user)
    with pytest.raises(ToolError, match="it is a directory"):
        write_bytes(user_dir, b"x", tool_user)


def test_reads_are_bounded_and_ends_of_files_are_exact(user_dir: Path, tool_user: ToolIdentity) -> None:
    assert read_bytes(Path("/dev/zero"), tool_user, max_bytes=10) == b"\0" * 11
    small = user_dir / "small.txt"
    small.write_bytes(b"abc")
    assert read_bytes(small, tool_user, max_bytes=10) == b"abc"


def test_a_fifo_nobody_writes_is_refused_at_once(user_dir: Path, tool_user: ToolIdentity) -> None:
    fifo = user_dir / "pipe"
    os.mkfifo(fifo)
    os.chown(fifo, tool_user.uid, tool_user.gid)
    with pytest.raises(ToolError, match="FIFO"):
        os.close(open_for_read(fifo, "pipe", tool_user))


def test_a_helper_that_never_answers_is_given_up_on(
    user_dir: Path, tool_user: ToolIdentity, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aw_action.security.confinement import fileio

    monkeypatch.setattr(fileio, "_HELPER", "import time\ntime.sleep(60)")
    with pytest.raises(OSError) as caught:
        open_as(user_dir / "x", os.O_RDONLY, 0, tool_user, timeout_s=1.0)
    assert caught.value.errno == errno.ETIMEDOUT


def test_writes_create_parents_owned_by_the_tool_user(user_dir: Path, tool_user: ToolIdentity) -> None:
    target = user_dir / "new" / "dir" / "f.txt"
    write_bytes(target, "héllo\n".encode(), tool_user)
    assert target.read_bytes() == "héllo\n".encode()
    assert target.stat().st_uid == tool_user.uid
    assert (user_dir / "new").stat().st_uid == tool_user.uid


def test_writes_into_root_owned_places_are_refused(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    records = shared_tmp / "records"
    records.mkdir(mode=0o755)
    (records / "session.jsonl").write_text('{"ok":1}\n')
    with pytest.raises(ToolError, match="Permission denied"):
        write_bytes(records / "session.jsonl", b'{"forged":1}\n', tool_user)
    with pytest.raises(ToolError, match="Permission denied"):
        write_bytes(records / "new.jsonl", b"x", tool_user)
    assert (records / "session.jsonl").read_text() == '{"ok":1}\n'


def test_symlinks_are_followed_with_the_user_rights_only(
    user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    secret = shared_tmp / "root-secret"
    secret.write_text(PLANTED)
    secret.chmod(0o600)
    link = user_dir / "innocent.txt"
    link.symlink_to(secret)
    with pytest.raises(PermissionError):
        read_bytes(link, tool_user)


def test_file_names_that_are_not_utf8_work(user_dir: Path, tool_user: ToolIdentity) -> None:
    name = os.fsdecode(b"caf\xe9.txt")
    write_bytes(user_dir / name, b"ok", tool_user)
    assert read_bytes(user_dir / name, tool_user) == b"ok"
