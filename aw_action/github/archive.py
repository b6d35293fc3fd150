"""The artifact's zip: the output folder (and named extra files), plus its size and SHA-256; or,
where another step uploads them, the same files copied the same way (``stage_directory``).

Layout follows actions/upload-artifact: paths relative to the folder, hidden files and symlinks
left out, deflate level 6. The digest is of the zip bytes exactly as uploaded, which is what
``FinalizeArtifact`` expects as ``sha256:<hex>``.

Every file passes through ``scrub`` (the run's redactor) on its way into the zip: the folder also
holds files the agent wrote itself (its shell has ``GITHUB_TOKEN``), and an artifact can be
downloaded by anyone who can read the repository. Bytes that are not UTF-8 pass through
unchanged (``surrogateescape``); only the secrets inside a file change.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import zipfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from aw_action.lazy_dataclass import dataclass

_READ_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class ZipArchive:
    path: Path
    size: int
    sha256: str
    files: int


def artifact_files(root: Path, extra: Mapping[str, Path] | None = None) -> Iterator[tuple[str, Path]]:
    """What goes into the run's artifact, as (its name there, the file): each ``extra`` file that
    is a regular file under its given name, then the regular files under ``root`` by their path
    relative to it; hidden files and folders and symlinks left out, as upload-artifact leaves out
    hidden ones (a symlink the agent planted would otherwise carry any file its target names)."""
    for arcname, path in (extra or {}).items():
        if path.is_file() and not path.is_symlink():
            yield arcname, path
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for filename in sorted(filenames):
            path = Path(dirpath) / filename
            if filename.startswith(".") or path.is_symlink() or not path.is_file():
                continue
            yield path.relative_to(root).as_posix(), path


def _read(path: Path, scrub: Callable[[str], str] | None) -> bytes:
    data = path.read_bytes()
    if scrub is not None:
        data = scrub(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return data


def zip_directory(
    root: Path, dest: Path, extra: Mapping[str, Path] | None = None, scrub: Callable[[str], str] | None = None
) -> ZipArchive:
    """Zips ``artifact_files(root, extra)``, deflate level 6. ``scrub`` rewrites each file's text."""
    count = 0
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for arcname, path in artifact_files(root, extra):
            try:
                data = _read(path, scrub)
            except OSError:
                continue  # vanished or unreadable: the rest still goes up
            archive.writestr(zipfile.ZipInfo.from_file(path, arcname), data, zipfile.ZIP_DEFLATED, 6)
            count += 1
    digest = hashlib.sha256()
    with dest.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_READ_CHUNK), b""):
            digest.update(chunk)
    return ZipArchive(dest, dest.stat().st_size, digest.hexdigest(), count)


def stage_directory(
    root: Path, dest: Path, extra: Mapping[str, Path] | None = None, scrub: Callable[[str], str] | None = None
) -> int:
    """Copies ``artifact_files(root, extra)``, each through ``scrub``, into ``dest`` made afresh
    (whatever was there, a symlink included, is removed first; files are created, never followed):
    what another step uploads in place of the harness, which cannot upload there (the runner-side
    action's composite steps get no runtime token). Returns how many files were copied."""
    if dest.is_symlink():
        dest.unlink()
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(mode=0o700, parents=True)
    count = 0
    for arcname, path in artifact_files(root, extra):
        try:
            data = _read(path, scrub)
        except OSError:
            continue
        target = dest / arcname
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        count += 1
    return count
