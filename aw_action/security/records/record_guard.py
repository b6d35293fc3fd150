"""The run's records, out of the agent's reach, and a check at the end that they are intact.

Two layers:
- ``protect_output_dir``: the output directory is owned by the harness's user with mode 0755
  (files 0644), and the process umask keeps group/other write off whatever the harness creates.
  When tools run as another user (``identity.py``) they can read the records (the agent reads
  its own ``bash-*.log`` spill files) but can neither write, create, remove nor rename entries.
  When tools run as the harness's own user nothing on disk can stop them; the ledger then is the
  only line.
- ``RecordLedger``: every writer reports each chunk it wrote (``wrote``); the ledger keeps a
  running SHA-256 and byte count per file, plus the directory's identity (device, inode). At the
  end ``verify`` re-reads each file and names what changed: a file ``removed``, ``replaced``
  (another inode), ``truncated``, ``appended`` (what was written is intact but more follows), or
  ``modified``, and the directory ``replaced`` (renamed away and recreated, possible when its
  parent is writable by the agent, e.g. ``$RUNNER_TEMP``). The caller reports a non-empty list
  as a degraded run. Appending is detected exactly: the file's first N bytes must hash to what
  was written. Writers see the ledger through ``RecordWrites`` (``open`` and ``replace`` to
  reach their files; ``wrote`` after each successful write; ``adopt`` for a file whose whole
  current content is the harness's, such as a transcript appended to across runs or a tool's
  output log rewritten through the redactor).
- Where: the ledger holds the output dir open (``record_dir.RecordDir``) from the moment it is
  made, before any tool runs; writers open their files through it (``open_record``,
  ``write_record``) and the check reads them through it, so a dir the agent renamed away and
  replaced (with a folder or a link of its own) receives nothing: the records land in the
  original and the check reports the path ``dir-replaced``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import field
from pathlib import Path
from typing import Protocol

from aw_action.lazy_dataclass import dataclass
from aw_action.security.records.record_dir import FILE_MODE, RecordDir

DIR_MODE = 0o755


@dataclass(frozen=True)
class Tamper:
    path: str
    what: str
    """``removed``, ``replaced``, ``truncated``, ``appended``, ``modified`` or ``dir-replaced``."""
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what} ({self.detail})"


@dataclass
class _Written:
    digest: hashlib._Hash = field(default_factory=hashlib.sha256)
    size: int = 0
    inode: tuple[int, int] | None = None


def protect_output_dir(path: Path) -> str:
    """Create ``path`` if needed, own it by this process's user (when root), mode 0755, and
    tighten the umask; existing entries are re-owned and lose group/other write. Returns a
    one-line description of what holds."""
    os.umask(os.umask(0) | 0o022)
    path.mkdir(parents=True, exist_ok=True)
    uid, gid = os.geteuid(), os.getegid()
    entries = [path]
    for root, dirs, files in os.walk(path, followlinks=False):
        entries += [Path(root, name) for name in [*dirs, *files]]
    for entry in entries:
        st = entry.lstat()
        if stat.S_ISLNK(st.st_mode):
            entry.unlink()  # nothing the harness writes is a symlink; a planted one is removed
            continue
        if uid == 0 and (st.st_uid, st.st_gid) != (uid, gid):
            os.chown(entry, uid, gid)
        os.chmod(entry, stat.S_IMODE(st.st_mode) & ~0o022)
    os.chmod(path, DIR_MODE)
    return f"{path} owned by uid {uid}, mode {DIR_MODE:o}: only the harness's user can change it"


class RecordWrites(Protocol):
    """How a record writer reaches its file and reports what it wrote (the ledger itself, or
    nothing in tests: then ``open_record`` and ``write_record`` go by path, without links)."""

    def open(self, path: Path, flags: int, mode: int = FILE_MODE) -> int: ...

    def replace(self, path: Path, data: bytes, mode: int = FILE_MODE) -> None: ...

    def rename(self, source: Path, target: Path) -> None: ...

    def unlink(self, path: Path) -> None: ...

    def wrote(self, path: Path, data: bytes) -> None: ...

    def adopt(self, path: Path) -> None: ...


def open_record(path: Path, flags: int, records: RecordWrites | None, mode: int = FILE_MODE) -> int:
    """``os.open`` for a record file: through the run's held output dir when there is a ledger,
    else by path; never through a symbolic link. The caller closes the descriptor."""
    if records is not None:
        return records.open(path, flags, mode)
    if flags & os.O_CREAT:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)


def is_record_file(path: Path, records: RecordWrites | None) -> bool:
    """Whether ``path`` is a regular file (in the held output dir when there is a ledger)."""
    try:
        fd = open_record(path, os.O_RDONLY | os.O_NONBLOCK, records)
    except OSError:
        return False
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode)
    finally:
        os.close(fd)


def write_record(path: Path, data: bytes, records: RecordWrites | None, mode: int = FILE_MODE) -> None:
    """Replace ``path``'s content with ``data`` atomically (a reader sees the old file or the new
    one), through the held output dir when there is a ledger, which then knows its hash."""
    if records is not None:
        records.replace(path, data, mode)
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(RecordDir(Path(path).parent)) as folder:
        folder.replace(path, data, mode)


class RecordLedger:
    """Running hashes of what the harness wrote into its record files, and the output dir they
    live in, held open (see the module docstring)."""

    def __init__(self, directory: Path | RecordDir) -> None:
        self.folder = directory if isinstance(directory, RecordDir) else RecordDir(directory)
        self.directory = self.folder.path
        self._files: dict[Path, _Written] = {}

    def open(self, path: Path, flags: int, mode: int = FILE_MODE) -> int:
        """A record file in the held dir; a path elsewhere is opened by path, without links."""
        try:
            return self.folder.open(path, flags, mode)
        except ValueError:
            return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)

    def replace(self, path: Path, data: bytes, mode: int = FILE_MODE) -> None:
        """Replace the file atomically in the held dir; its hash is what was written."""
        st = self.folder.replace(Path(path), data, mode)
        entry = self._files[Path(path)] = _Written(inode=(st.st_dev, st.st_ino))
        entry.digest.update(data)
        entry.size = len(data)

    def rename(self, source: Path, target: Path) -> None:
        """``os.replace`` of one entry of the held dir by another (both names in it)."""
        with self.folder.parent_of(source) as (src, old), self.folder.parent_of(target) as (dst, new):
            os.replace(old, new, src_dir_fd=src, dst_dir_fd=dst)

    def unlink(self, path: Path) -> None:
        self.folder.unlink(path)

    def _identity(self, path: Path) -> tuple[int, int] | None:
        try:
            st = self.folder.lstat(path)
        except (OSError, ValueError):
            return None
        return (st.st_dev, st.st_ino)

    def _open_for_reading(self, path: Path) -> int:
        return self.open(path, os.O_RDONLY | os.O_NONBLOCK)

    def wrote(self, path: Path, data: bytes) -> None:
        """Record that ``data`` was appended to ``path`` (call after each successful write)."""
        entry = self._files.get(path)  # the writer's own Path: no new Path or hash object per line
        if entry is None:
            path = Path(path)
            entry = self._files.get(path)
            if entry is None:
                entry = self._files[path] = _Written()
        if entry.inode is None:
            entry.inode = self._identity(Path(path))
        entry.digest.update(data)
        entry.size += len(data)

    def truncated_to(self, path: Path, data_kept: bytes) -> None:
        """The writer cut the file back (a partial write): restart its hash from ``data_kept``."""
        entry = self._files[Path(path)] = _Written(inode=self._identity(Path(path)))
        entry.digest.update(data_kept)
        entry.size = len(data_kept)

    def adopt(self, path: Path) -> None:
        """Take the file's current content as what the harness wrote (call it when the harness
        alone could have written it: before any tool runs, or into a protected output dir).
        A file that cannot be read as a regular file is dropped from the ledger."""
        path = Path(path)
        entry = _Written(inode=self._identity(path))
        try:
            fd = self._open_for_reading(path)
        except OSError:
            self._files.pop(path, None)
            return
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                self._files.pop(path, None)
                return
            while chunk := fh.read(1 << 20):
                entry.digest.update(chunk)
                entry.size += len(chunk)
        self._files[path] = entry

    @property
    def files(self) -> list[Path]:
        return list(self._files)

    def digests(self) -> dict[Path, str]:
        """Each file's SHA-256 (hex) of what the harness wrote, in the order first written."""
        return {path: written.digest.hexdigest() for path, written in self._files.items()}

    def verify(self) -> list[Tamper]:
        """What changed since it was written; empty when every record is intact."""
        found: list[Tamper] = []
        if self.folder.moved():
            found.append(Tamper(str(self.directory), "dir-replaced", "the output directory is not the one written"))
        for path, written in self._files.items():
            problem = self._check(path, written)
            if problem is not None:
                found.append(problem)
        return found

    def _check(self, path: Path, written: _Written) -> Tamper | None:
        name = str(path)
        try:
            fd = self._open_for_reading(path)
        except FileNotFoundError:
            return Tamper(name, "removed", f"{written.size} bytes were written")
        except OSError as exc:
            return Tamper(name, "replaced", f"cannot be opened as a file: {exc.strerror}")
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                return Tamper(name, "replaced", "no longer a regular file")
            digest = hashlib.sha256()
            left = written.size
            while left > 0:
                chunk = fh.read(min(left, 1 << 20))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)
        if left > 0:
            return Tamper(name, "truncated", f"{st.st_size} of {written.size} bytes left")
        if digest.hexdigest() != written.digest.hexdigest():
            return Tamper(name, "modified", "the bytes written were changed")
        if written.inode is not None and (st.st_dev, st.st_ino) != written.inode:
            return Tamper(name, "replaced", "same bytes, another file")
        if st.st_size > written.size:
            return Tamper(name, "appended", f"{st.st_size - written.size} bytes the harness did not write")
        return None
