"""Reading a run's records back from where a person or a job downloaded them: a folder, or the
artifact's zip as GitHub serves it. Stranger's input, so bounded and never extracted.

- ``ReadBudget``: every byte read (decompressed) from every file and zip member counts against
  one limit; past it the read stops with ``ArchiveError`` (a 3 MB zip can hold gigabytes).
- ``read_regular``: a file is read only when it is a regular file reached without following a
  symbolic link (a FIFO, a device or a link named like a record is refused, never opened).
- ``checked_members``: a zip is refused whole when any member could not have come from an
  artifact upload (which stores regular files under relative paths): an absolute name or one
  that climbs out (``..``), a symbolic link, an encrypted member, a name given twice, or a
  member that claims to inflate more than ``MAX_RATIO`` times (a zip bomb). Members are read in
  memory (``read_member``); nothing from a zip ever reaches the file system.

The audit (``audit/sources.py``) and the replay (``replay/records.py``) read through it.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO

CHUNK = 1024 * 1024
MAX_RATIO = 1000
"""A member that inflates more than this many times its stored size is a zip bomb."""
_RATIO_FLOOR = 1024 * 1024
"""Members smaller than this (inflated) are never judged by their ratio (a run of blanks is fine)."""


class ArchiveError(Exception):
    """Why something cannot be read; one line that names the file or member."""


class ReadBudget:
    """The bytes still to be read, shared by every file and member of one reading."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.left = limit
        self.what = what
        """Named in the error: ``the records exceed the <what> limit of N MB``."""

    def read(self, stream: IO[bytes], name: str) -> bytes:
        chunks: list[bytes] = []
        while chunk := stream.read(min(CHUNK, self.left + 1)):
            self.left -= len(chunk)
            if self.left < 0:
                raise ArchiveError(
                    f"{name}: the records exceed the {self.what} limit of {self.limit // (1024 * 1024)} MB "
                    "(decompressed, all files together)"
                )
            chunks.append(chunk)
        return b"".join(chunks)


def read_regular(path: Path, budget: ReadBudget) -> bytes:
    """``path``'s bytes when it is a regular file and not a symbolic link (``ArchiveError`` else)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ArchiveError(f"{path}: not found") from None
    except OSError as exc:
        if path.is_symlink():
            raise ArchiveError(f"{path}: is a symbolic link; records are regular files") from None
        raise ArchiveError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as stream:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ArchiveError(f"{path}: not a regular file")
        return budget.read(stream, str(path))


def unsafe_member(info: zipfile.ZipInfo) -> str | None:
    """Why a member could not be part of an uploaded artifact, or None."""
    name = info.filename
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if name.startswith(("/", "\\")) or (parts and parts[0].endswith(":")) or ".." in parts:
        return "its path leaves the archive"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "it is a symbolic link"
    if info.flag_bits & 0x1:
        return "it is encrypted"
    if info.file_size > _RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        return f"it claims to inflate {info.file_size // max(info.compress_size, 1)} times (a zip bomb)"
    return None


def checked_members(archive: zipfile.ZipFile, where: str) -> dict[str, zipfile.ZipInfo]:
    """The zip's file members by name; ``ArchiveError`` naming the first one refused."""
    members: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        reason = unsafe_member(info)
        if reason is None and info.filename in members:
            reason = "its name is given twice"
        if reason is not None:
            raise ArchiveError(f"{where}: member {info.filename!r} refused: {reason}")
        if not info.is_dir():
            members[info.filename] = info
    return members


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: ReadBudget, where: str) -> bytes:
    """One member's bytes, inflated within ``budget``; ``ArchiveError`` when it is damaged."""
    name = f"{where}:{info.filename}"
    try:
        with archive.open(info) as member:
            return budget.read(member, name)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ArchiveError(f"{name}: cannot be read: {exc}") from None
