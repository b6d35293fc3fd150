"""The artifact's zip: the output folder (and named extra files), plus its size and SHA-256.

Layout follows actions/upload-artifact: paths relative to the folder, hidden files and symlinks
left out, deflate level 6. The digest is of the zip bytes exactly as uploaded, which is what
``FinalizeArtifact`` expects as ``sha256:<hex>``.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

_READ_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class ZipArchive:
    path: Path
    size: int
    sha256: str
    files: int


def zip_directory(root: Path, dest: Path, extra: Mapping[str, Path] | None = None) -> ZipArchive:
    """Zips the regular files under ``root`` (hidden files and symlinks left out, as
    upload-artifact does), paths relative to ``root``, deflate level 6; then each ``extra``
    file that exists under its given archive name."""
    count = 0
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive:
        for arcname, path in (extra or {}).items():
            if path.is_file() and not path.is_symlink():
                archive.write(path, arcname)
                count += 1
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                if filename.startswith(".") or path.is_symlink() or not path.is_file():
                    continue
                try:
                    archive.write(path, path.relative_to(root).as_posix())
                except OSError:
                    continue  # vanished or unreadable: the rest still goes up
                count += 1
    digest = hashlib.sha256()
    with dest.open("rb") as handle:
        for chunk in iter(lambda: handle.read(_READ_CHUNK), b""):
            digest.update(chunk)
    return ZipArchive(dest, dest.stat().st_size, digest.hexdigest(), count)
