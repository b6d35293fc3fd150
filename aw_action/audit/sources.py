"""Where an audit reads from: a run's output dir, a downloaded artifact folder, or a zip.

``open_artifact`` gathers the JSONL files the audit knows (by file name) into memory, keyed by
their path relative to the root, with ``/`` separators. Zips are read member by member without
extracting (no path from inside a zip touches the file system); a folder may itself hold
artifact zips (one level), as ``gh run download`` leaves them.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

KNOWN_NAMES = frozenset({"aw_session.jsonl", "token-usage.jsonl", "context-provenance.jsonl"})
MAX_FILE_BYTES = 256 * 1024 * 1024


class AuditInputError(Exception):
    """The path cannot be audited (missing, unreadable, or holds no known record file)."""


@dataclass
class Artifact:
    root: str
    files: dict[str, str] = field(default_factory=dict)

    def named(self, name: str) -> list[str]:
        """Paths whose file name is ``name``, shortest (closest to the root) first."""
        return sorted((p for p in self.files if PurePosixPath(p).name == name), key=lambda p: (p.count("/"), p))


def _read_zip(archive: Path, prefix: str, into: dict[str, str]) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = PurePosixPath(info.filename).name
                if info.is_dir() or name not in KNOWN_NAMES or info.file_size > MAX_FILE_BYTES:
                    continue
                into[prefix + info.filename.lstrip("/")] = zf.read(info).decode("utf-8", "replace")
    except (zipfile.BadZipFile, OSError) as exc:
        raise AuditInputError(f"cannot read zip {archive}: {exc}") from exc


def open_artifact(path: Path) -> Artifact:
    if not path.exists():
        raise AuditInputError(f"no such file or directory: {path}")
    artifact = Artifact(root=str(path))
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise AuditInputError(f"{path} is neither a directory nor a zip file")
        _read_zip(path, "", artifact.files)
    else:
        for file in sorted(path.rglob("*")):
            rel = file.relative_to(path).as_posix()
            if file.is_file() and file.name in KNOWN_NAMES:
                artifact.files[rel] = file.read_text(encoding="utf-8", errors="replace")
            elif file.is_file() and file.suffix == ".zip" and rel.count("/") == 0:
                _read_zip(file, f"{file.stem}/", artifact.files)
    if not artifact.files:
        raise AuditInputError(f"{path} holds no aw_session.jsonl, token-usage.jsonl or context-provenance.jsonl")
    return artifact
