"""Reading records from a downloaded artifact: bounded, regular files only, and a zip refused
whole when a member could not come from an upload (a path out of it, a link, encryption, a name
twice, a bomb)."""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

import pytest

from aw_action.security.records.archive_read import (
    ArchiveError,
    ReadBudget,
    checked_members,
    read_member,
    read_regular,
    unsafe_member,
)


def info(
    name: str, size: int = 10, stored: int = 10, mode: int = stat.S_IFREG | 0o644, flags: int = 0
) -> zipfile.ZipInfo:
    member = zipfile.ZipInfo(name)
    member.file_size, member.compress_size, member.external_attr, member.flag_bits = size, stored, mode << 16, flags
    return member


@pytest.mark.parametrize(
    ("member", "reason"),
    [
        (info("../up.txt"), "leaves the archive"),
        (info("a/../../up.txt"), "leaves the archive"),
        (info("/abs.txt"), "leaves the archive"),
        (info("\\\\server\\share.txt"), "leaves the archive"),
        (info("C:/win.txt"), "leaves the archive"),
        (info("link", mode=stat.S_IFLNK | 0o777), "symbolic link"),
        (info("secret.txt", flags=0x1), "encrypted"),
        (info("bomb.jsonl", size=5 * 1024**3, stored=5 * 1024**2 // 2), "zip bomb"),
    ],
)
def test_members_no_upload_makes_are_refused(member: zipfile.ZipInfo, reason: str) -> None:
    assert reason in (unsafe_member(member) or "")


@pytest.mark.parametrize("member", [info("replay.jsonl"), info("run/session.jsonl"), info("blank", 2 * 1024**2, 4096)])
def test_members_an_upload_makes_are_read(member: zipfile.ZipInfo) -> None:
    assert unsafe_member(member) is None


def test_a_name_given_twice_refuses_the_zip() -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as zf, pytest.warns(UserWarning):
        zf.writestr("replay.jsonl", "a")
        zf.writestr("replay.jsonl", "b")
    with zipfile.ZipFile(data) as zf, pytest.raises(ArchiveError, match="given twice"):
        checked_members(zf, "artifact.zip")


def test_every_byte_read_counts_against_one_budget(tmp_path: Path) -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a.jsonl", b"x" * 600)
        zf.writestr("b.jsonl", b"y" * 600)
    budget = ReadBudget(1000, "replay")
    with zipfile.ZipFile(data) as zf:
        members = checked_members(zf, "artifact.zip")
        assert read_member(zf, members["a.jsonl"], budget, "artifact.zip") == b"x" * 600
        with pytest.raises(ArchiveError, match=r"artifact.zip:b.jsonl: the records exceed the replay limit"):
            read_member(zf, members["b.jsonl"], budget, "artifact.zip")


def test_only_regular_files_are_read_and_never_through_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.jsonl").write_text("{}\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "real.jsonl")
    os.mkfifo(tmp_path / "fifo.jsonl")
    budget = ReadBudget(1 << 20, "replay")
    assert read_regular(tmp_path / "real.jsonl", budget) == b"{}\n"
    with pytest.raises(ArchiveError, match="symbolic link"):
        read_regular(tmp_path / "link.jsonl", budget)
    with pytest.raises(ArchiveError, match="not a regular file"):
        read_regular(tmp_path / "fifo.jsonl", budget)
    with pytest.raises(ArchiveError, match="not found"):
        read_regular(tmp_path / "missing.jsonl", budget)
