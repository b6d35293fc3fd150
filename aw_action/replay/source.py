"""Where a recording is read from: a run's output folder, or its artifact (the folder
``gh run download`` leaves, or the zip the UI serves), checked against its ``records.sha256``.

``read_source(path)`` finds the recording (``replay.jsonl``) at the top of the folder or zip, or
in exactly one folder one level down (``gh run download`` without ``--name`` makes one folder
per artifact; earlier runs' records in ``previous-runs/`` are not it), and reads the files a
replay needs with it: the replay record, the transcript and the manifest, bounded and without
extracting anything (``security/archive_read``). Each must be named in the manifest with the
digest it has: a file cut short or changed after its run wrote it is refused, as is a recording
without a manifest (its run did not finish its records). Every failure is a ``RecordingError``
naming the file and the reason (``aw-harness replay`` exits 2).
"""

from __future__ import annotations

import zipfile
from pathlib import Path, PurePosixPath

from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT
from aw_action.exits import InvocationError
from aw_action.lazy_dataclass import dataclass
from aw_action.security.records.archive_read import ArchiveError, ReadBudget, checked_members, read_member, read_regular
from aw_action.security.records.record_manifest import MANIFEST_FILE, digest_problem, parse_manifest
from aw_action.sinks.previous_run import PREVIOUS_RUNS_DIR
from aw_action.sinks.replay_record import FILE_NAME as REPLAY_FILE

MAX_BYTES = 256 * 1024 * 1024
"""All files of one recording together, inflated."""
NEEDED = (REPLAY_FILE, TRANSCRIPT)


class RecordingError(InvocationError):
    """The recording cannot be replayed; the message names the file and the reason."""


@dataclass(frozen=True)
class SourceFiles:
    """The files of one recording, as checked against its manifest."""

    where: str
    """The folder or ``zip:folder`` they were read from, for messages."""
    files: dict[str, bytes]


def read_source(path: Path) -> SourceFiles:
    budget = ReadBudget(MAX_BYTES, "replay")
    try:
        if path.is_dir():
            return _checked(_from_folder(path, budget))
        if path.is_file() and zipfile.is_zipfile(path):
            return _checked(_from_zip(path, budget))
    except ArchiveError as exc:
        raise RecordingError(str(exc)) from None
    if not path.exists():
        raise RecordingError(f"{path}: no such file or directory")
    if path.is_file() and _starts_as_zip(path):
        raise RecordingError(f"{path}: a zip cut short or damaged (it has no central directory)")
    raise RecordingError(f"{path}: neither a run's output folder nor an artifact zip")


def _starts_as_zip(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(4) == b"PK\x03\x04"
    except OSError:
        return False


def _from_folder(root: Path, budget: ReadBudget) -> SourceFiles:
    found = [root] if (root / REPLAY_FILE).exists() else []
    if not found:
        found = sorted(
            p for p in root.iterdir() if p.is_dir() and p.name != PREVIOUS_RUNS_DIR and (p / REPLAY_FILE).exists()
        )
    folder = _one(found, root)
    files = {name: read_regular(folder / name, budget) for name in (*NEEDED, MANIFEST_FILE) if _exists(folder / name)}
    return SourceFiles(str(folder), files)


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()


def _from_zip(archive: Path, budget: ReadBudget) -> SourceFiles:
    try:
        with zipfile.ZipFile(archive) as zf:
            members = checked_members(zf, str(archive))
            prefixes = sorted({_prefix(name) for name in members if PurePosixPath(name).name == REPLAY_FILE})
            prefixes = [p for p in prefixes if p.count("/") <= 1 and PREVIOUS_RUNS_DIR not in p.split("/")]
            top = [p for p in prefixes if not p] or prefixes
            prefix = _one([archive / p for p in top], archive)
            base = prefix.relative_to(archive).as_posix() + "/" if prefix != archive else ""
            files = {
                name: read_member(zf, members[base + name], budget, str(archive))
                for name in (*NEEDED, MANIFEST_FILE)
                if base + name in members
            }
            return SourceFiles(f"{archive}:{base}" if base else str(archive), files)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        raise ArchiveError(f"{archive}: cannot read the zip: {exc}") from None


def _prefix(member: str) -> str:
    parent = PurePosixPath(member).parent.as_posix()
    return "" if parent == "." else parent


def _one(found: list[Path], root: Path) -> Path:
    if len(found) == 1:
        return found[0]
    if not found:
        raise ArchiveError(
            f"{root}: holds no {REPLAY_FILE}: not a run's records, or recorded by an aw-harness that did not "
            "record replays yet"
        )
    names = ", ".join(p.name for p in found[:5])
    raise ArchiveError(f"{root}: holds {len(found)} recordings ({names}): name the one to replay")


def _checked(source: SourceFiles) -> SourceFiles:
    """``source`` when each needed file is there and matches the manifest beside it."""
    where, files = source.where, source.files
    for name in NEEDED:
        if name not in files:
            raise RecordingError(f"{where}: {name} is missing")
    manifest = files.get(MANIFEST_FILE)
    if manifest is None:
        raise RecordingError(
            f"{where}: {MANIFEST_FILE} is missing: the run did not finish its records, so they cannot be trusted"
        )
    try:
        digests = parse_manifest(manifest.decode("utf-8"), f"{where}/{MANIFEST_FILE}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise RecordingError(f"{where}/{MANIFEST_FILE}: {exc}") from None
    for name in NEEDED:
        problem = digest_problem(name, files[name], digests)
        if problem is not None:
            raise RecordingError(f"{where}/{name}: {problem}")
    return source
