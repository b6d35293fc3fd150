"""The output dir, held open: every record file is opened relative to the directory the run
started with, never by resolving its path again.

The agent cannot write the output dir, but it may own the folder around it (a workspace it was
lent, ``$RUNNER_TEMP``): it can rename the output dir away and put a folder of its own, or a
symbolic link, in its place, whose entries are links to files root may write. A path resolved
after that leads root's writes there. ``RecordDir`` opens the dir once (``O_DIRECTORY |
O_NOFOLLOW``: a link in its place is refused, not followed) and then opens, creates, replaces,
renames and inspects entries relative to that descriptor, every component with ``O_NOFOLLOW``:
a renamed dir keeps receiving the run's records where they were, and a link planted inside is
an error, not a redirection. ``moved()`` tells whether the path now names another directory.

Contract: ``open(path, ...)`` takes the paths the writers already use (``output_dir / name``,
also ``output_dir / "sub" / name``); a path outside the dir raises ``ValueError`` (a writer that
means another place opens it itself). Errors are ``OSError`` as from ``os.open``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import weakref
from collections.abc import Iterator
from pathlib import Path

FILE_MODE = 0o644
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class RecordDir:
    def __init__(self, path: Path) -> None:
        """Open ``path`` (it must exist and be a directory, not a link to one)."""
        self.path = Path(path)
        self.fd = os.open(self.path, _DIR_FLAGS)
        st = os.fstat(self.fd)
        self.identity = (st.st_dev, st.st_ino)
        self._closer = weakref.finalize(self, os.close, self.fd)

    def close(self) -> None:
        self._closer()

    def relative(self, path: Path) -> tuple[str, ...]:
        """``path``'s components under the dir; ``ValueError`` when it is not under it."""
        path = Path(path)
        if not path.is_relative_to(self.path) or path == self.path:
            raise ValueError(f"{path} is not in the output dir {self.path}")
        parts = path.relative_to(self.path).parts
        if any(part in ("..", ".") for part in parts):
            raise ValueError(f"{path}: '..' and '.' are not followed in the output dir")
        return parts

    @contextlib.contextmanager
    def folder(self, path: Path, make: bool = False) -> Iterator[int]:
        """A descriptor of the folder ``path`` in the dir (the dir itself for its own path);
        folders on the way are opened without following links (and created, mode 0755, with
        ``make``)."""
        fd = os.dup(self.fd)
        try:
            for part in self.relative(path) if Path(path) != self.path else ():
                if make:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o755, dir_fd=fd)
                inner = os.open(part, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = inner
            yield fd
        finally:
            os.close(fd)

    @contextlib.contextmanager
    def parent_of(self, path: Path, make: bool = False) -> Iterator[tuple[int, str]]:
        """``(descriptor of the folder holding path, its name)`` (see ``folder``)."""
        name = self.relative(path)[-1]
        with self.folder(Path(path).parent, make) as parent:
            yield parent, name

    def open(self, path: Path, flags: int, mode: int = FILE_MODE) -> int:
        """``os.open`` of ``path`` inside the dir, never through a link; the caller closes it."""
        with self.parent_of(path, make=bool(flags & os.O_CREAT)) as (parent, name):
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=parent)

    def lstat(self, path: Path) -> os.stat_result:
        with self.parent_of(path) as (parent, name):
            return os.stat(name, dir_fd=parent, follow_symlinks=False)

    def replace(self, path: Path, data: bytes, mode: int = FILE_MODE) -> os.stat_result:
        """Write ``data`` as ``path`` atomically (a temporary file beside it, fsync, rename, the
        folder fsynced); returns the new file's status."""
        with self.parent_of(path, make=True) as (parent, name):
            tmp = f".{name}.{secrets.token_hex(6)}.tmp"
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=parent)
            try:
                try:
                    os.fchmod(fd, mode)  # the umask does not decide a record's mode
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                    os.fsync(fd)
                    st = os.fstat(fd)
                finally:
                    os.close(fd)
                os.replace(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=parent)
                raise
            os.fsync(parent)
            return st

    def unlink(self, path: Path) -> None:
        with self.parent_of(path) as (parent, name):
            os.unlink(name, dir_fd=parent)

    def moved(self) -> bool:
        """Whether the path no longer names this directory (renamed away, replaced, a link)."""
        try:
            st = os.lstat(self.path)
        except OSError:
            return True
        return not stat.S_ISDIR(st.st_mode) or (st.st_dev, st.st_ino) != self.identity
