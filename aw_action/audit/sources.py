"""Where an audit reads from: a run's output dir, a downloaded artifact folder, or a zip.

``open_artifact`` gathers the JSONL files the audit knows (by file name) into memory, keyed by
their path relative to the root, with ``/`` separators. Zips are read member by member without
extracting (no path from inside a zip touches the file system); a folder may itself hold
artifact zips (one level), as ``gh run download`` leaves them.

Bounded (``security/archive_read.ReadBudget``): everything read, decompressed, counts against
``MAX_TOTAL_BYTES`` (a 3 MB zip can hold gigabytes of text); past it the audit stops with
``AuditInputError`` (exit 2, one line).
Only regular files are read (a FIFO or device named like a record file is skipped). Earlier
runs' records, which a run moves into ``previous-runs/`` (``sinks/previous_run.py``), are not
this run's: they are left out unless that folder is the one audited.
"""

from __future__ import annotations

import stat
import zipfile
from dataclasses import field
from pathlib import Path, PurePosixPath
from typing import IO

from aw_action.lazy_dataclass import dataclass
from aw_action.security.records.archive_read import ArchiveError, ReadBudget
from aw_action.sinks.previous_run import PREVIOUS_RUNS_DIR
from aw_action.sinks.record_files import ProvenanceFile, TokenUsageFile, UnifiedSession

UNIFIED_SESSION = UnifiedSession.file_name
"""gh-aw's unified session (``usage/`` in gh-aw's artifact) or a standalone run's."""
TOKEN_USAGE = TokenUsageFile.file_name
"""AWF's api-proxy rows, or a standalone run's."""
CONTEXT_PROVENANCE = ProvenanceFile.file_name
KNOWN_NAMES = (UNIFIED_SESSION, TOKEN_USAGE, CONTEXT_PROVENANCE)
"""The record files the audit reads (by file name, anywhere in what is audited)."""
MAX_TOTAL_BYTES = 32 * 1024 * 1024


class AuditInputError(Exception):
    """The path cannot be audited (missing, unreadable, or holds no known record file)."""


@dataclass
class Artifact:
    root: str
    files: dict[str, str] = field(default_factory=dict)

    def named(self, name: str) -> list[str]:
        """Paths whose file name is ``name``, shortest (closest to the root) first."""
        return sorted((p for p in self.files if PurePosixPath(p).name == name), key=lambda p: (p.count("/"), p))


def _read(stream: IO[bytes], name: str, budget: ReadBudget) -> str:
    try:
        return budget.read(stream, name).decode("utf-8", "replace")
    except ArchiveError as exc:
        raise AuditInputError(str(exc)) from None


def _read_zip(archive: Path, prefix: str, into: dict[str, str], budget: ReadBudget) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                name = PurePosixPath(info.filename).name
                if info.is_dir() or name not in KNOWN_NAMES or _earlier_run(info.filename):
                    continue
                with zf.open(info) as member:
                    into[prefix + info.filename.lstrip("/")] = _read(member, f"{archive}:{info.filename}", budget)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise AuditInputError(f"cannot read zip {archive}: {exc}") from exc


def open_artifact(path: Path) -> Artifact:
    if not path.exists():
        raise AuditInputError(f"no such file or directory: {path}")
    artifact = Artifact(root=str(path))
    budget = ReadBudget(MAX_TOTAL_BYTES, "audit")
    if path.is_file():
        if not zipfile.is_zipfile(path):
            raise AuditInputError(f"{path} is neither a directory nor a zip file")
        _read_zip(path, "", artifact.files, budget)
    else:
        for file in sorted(path.rglob("*")):
            rel = file.relative_to(path).as_posix()
            if _earlier_run(rel) or not _regular(file):
                continue
            if file.name in KNOWN_NAMES:
                try:
                    with file.open("rb") as stream:
                        artifact.files[rel] = _read(stream, rel, budget)
                except OSError as exc:
                    raise AuditInputError(f"cannot read {file}: {exc.strerror or exc}") from exc
            elif file.suffix == ".zip" and rel.count("/") == 0:
                _read_zip(file, f"{file.stem}/", artifact.files, budget)
    if not artifact.files:
        earlier = (
            f" (earlier runs' records are in {path / PREVIOUS_RUNS_DIR})" if (path / PREVIOUS_RUNS_DIR).is_dir() else ""
        )
        raise AuditInputError(f"{path} holds no {', '.join(KNOWN_NAMES[:-1])} or {KNOWN_NAMES[-1]}{earlier}")
    return artifact


def _earlier_run(rel: str) -> bool:
    """A file under a ``previous-runs/`` folder inside what is audited."""
    return PREVIOUS_RUNS_DIR in PurePosixPath(rel).parts[:-1]


def _regular(file: Path) -> bool:
    try:
        return stat.S_ISREG(file.stat().st_mode)
    except OSError:
        return False
