"""The artifact's zip: the output folder (and named extra files), plus its size and SHA-256.

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
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

_READ_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class ZipArchive:
    path: Path
    size: int
    sha256: str
    files: int


def zip_directory(
    root: Path, dest: Path, extra: Mapping[str, Path] | None = None, scrub: Callable[[str], str] | None = None
) -> ZipArchive:
    """Zips the regular files under ``root`` (hidden files and symlinks left out, as
    upload-artifact does), paths relative to ``root``, deflate level 6; then each ``extra``
    file that exists under its given archive name. ``scrub`` rewrites each file's text."""
    count = 0
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:

        def add(path: Path, arcname: str) -> None:
            data = path.read_bytes()
            if scrub is not None:
                data = scrub(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
            archive.writestr(zipfile.ZipInfo.from_file(path, arcname), data, zipfile.ZIP_DEFLATED, 6)

        for arcname, path in (extra or {}).items():
            if path.is_file() and not path.is_symlink():
                try:
                    add(path, arcname)
                except OSError:
                    continue
                count += 1
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                if filename.startswith(".") or path.is_symlink() or not path.is_file():
                    continue
                try:
                    add(path, path.relative_to(root).as_posix())
                except OSError:
                    continue  # vanished or unreadable: the rest still goes up
                count += 1
    digest = hashlib.sha256()
    with dest.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_READ_CHUNK), b""):
            digest.update(chunk)
    return ZipArchive(dest, dest.stat().st_size, digest.hexdigest(), count)
