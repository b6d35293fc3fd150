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
  was written. Writers see the ledger through ``RecordWrites`` (``wrote`` after each successful
  write; ``adopt`` for a file whose whole current content is the harness's, such as a
  transcript appended to across runs or a tool's output log rewritten through the redactor).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

DIR_MODE = 0o755
FILE_MODE = 0o644


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
    """What a record writer reports to the ledger (the ledger itself, or nothing in tests)."""

    def wrote(self, path: Path, data: bytes) -> None: ...

    def adopt(self, path: Path) -> None: ...


class RecordLedger:
    """Running hashes of what the harness wrote into its record files."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._dir_id = self._identity(directory)
        self._files: dict[Path, _Written] = {}

    @staticmethod
    def _identity(path: Path) -> tuple[int, int] | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def wrote(self, path: Path, data: bytes) -> None:
        """Record that ``data`` was appended to ``path`` (call after each successful write)."""
        entry = self._files.setdefault(Path(path), _Written())
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
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
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

    def verify(self) -> list[Tamper]:
        """What changed since it was written; empty when every record is intact."""
        found: list[Tamper] = []
        if self._dir_id is not None and self._identity(self.directory) != self._dir_id:
            found.append(Tamper(str(self.directory), "dir-replaced", "the output directory is not the one written"))
        for path, written in self._files.items():
            problem = self._check(path, written)
            if problem is not None:
                found.append(problem)
        return found

    @staticmethod
    def _check(path: Path, written: _Written) -> Tamper | None:
        name = str(path)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
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
