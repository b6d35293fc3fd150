"""One artifact read as replay reads a recording: bounded, never extracted, checked against its
``records.sha256``.

Every file the manifest names is read (``security/archive_read``: regular files only, zip members
that an upload could have made, all bytes of one artifact within ``MAX_BYTES``) and its digest
checked (``security/record_manifest.digest_problem``), not only ``aw_session.jsonl``, the one the
report parses: a run whose transcript was changed is as untrustworthy as one whose figures were.
Each file is held only while it is checked; ``aw_session.jsonl`` until it is parsed.

What cannot be counted is a ``Problem`` (``runs.py``), never an exception:

- ``unreadable``: not a folder or a zip, a damaged or refused zip, a file that cannot be read,
  no aw-harness records at all;
- ``inconsistent``: a file changed, cut short or missing against ``records.sha256``, or a
  manifest that is not one;
- ``merged``: files that disagree with the manifest and come from different sessions: the
  records of several runs collided in one folder (``actions/download-artifact`` with
  ``merge-multiple``); the folder is named;
- ``older-format``: records without a manifest or of another format (``runs.run_facts``).

An artifact that holds only the action's ``result.json`` of a run that could not start is that
run (``runs.not_started``): nothing else was recorded, so nothing else can be checked.

A zip holds its run at its top, or one run per folder one level down (each is counted).
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from aw_action.audit.readers import LineStats, iter_jsonl, parse_record
from aw_action.report.locate import RUN_MARKERS, Place
from aw_action.report.runs import Problem, RunFacts, not_started, run_facts
from aw_action.run.result import RESULT_FILE
from aw_action.security.records.archive_read import ArchiveError, ReadBudget, checked_members, read_member, read_regular
from aw_action.security.records.record_manifest import MANIFEST_FILE, digest_problem, parse_manifest
from aw_action.sinks.agent_session import FILE_NAME as GH_AW_SESSION
from aw_action.sinks.previous_run import PREVIOUS_RUNS_DIR
from aw_action.sinks.unified_session import FILE_NAME as SESSION

MAX_BYTES = 64 * 1024 * 1024
"""All files of one artifact together, inflated."""
MAX_NAMED = 1000
"""A manifest naming more files than this is not one a run wrote."""
HEAD_BYTES = 64 * 1024
"""How much of a file's first line is read for the session it belongs to."""

Reader = Callable[[str], bytes | None]
"""A run's file by its name in the manifest; None when it is absent, ``ArchiveError`` when refused."""
Entry = RunFacts | Problem


def read_place(place: Place, server: str) -> list[Entry]:
    """The runs of one artifact, or the problem that kept them from being read."""
    budget = ReadBudget(MAX_BYTES, "report")
    path = place.path
    try:
        if path.is_dir():
            return [check_run(_folder_reader(path, budget), str(path), place.label, server)]
        if path.is_file() and zipfile.is_zipfile(path):
            return _zip_runs(place, budget, server)
    except ArchiveError as exc:
        return [Problem(place.label, "unreadable", str(exc))]
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, RuntimeError) as exc:
        return [Problem(place.label, "unreadable", f"{path}: cannot be read: {exc}")]
    return [Problem(place.label, "unreadable", f"{path}: neither a folder nor a zip (cut short or damaged?)")]


def _folder_reader(folder: Path, budget: ReadBudget) -> Reader:
    root = folder.resolve()

    def read(name: str) -> bytes | None:
        path = folder / name
        if not (path.exists() or path.is_symlink()):
            return None
        if not path.resolve().is_relative_to(root):
            raise ArchiveError(f"{path}: leaves the run's folder")
        return read_regular(path, budget)

    return read


def _zip_runs(place: Place, budget: ReadBudget, server: str) -> list[Entry]:
    with zipfile.ZipFile(place.path) as archive:
        members = checked_members(archive, str(place.path))
        bases = sorted({_parent(name) for name in members if PurePosixPath(name).name in RUN_MARKERS})
        bases = [b for b in bases if b.count("/") == 0 and b != PREVIOUS_RUNS_DIR]
        if "" in bases:
            bases = [""]
        if not bases:
            return [Problem(place.label, "unreadable", f"{place.path}: holds no aw-harness records")]
        entries: list[Entry] = []
        for base in bases:
            prefix = f"{base}/" if base else ""

            def read(name: str, prefix: str = prefix) -> bytes | None:
                info = members.get(prefix + name)
                return None if info is None else read_member(archive, info, budget, str(place.path))

            label = f"{place.label}/{base}" if base else place.label
            entries.append(check_run(read, f"{place.path}:{base}" if base else str(place.path), label, server))
        return entries


def _parent(member: str) -> str:
    parent = PurePosixPath(member).parent.as_posix()
    return "" if parent == "." else parent


def _safe_name(name: str) -> bool:
    parts = PurePosixPath(name).parts
    return bool(parts) and not name.startswith("/") and ".." not in parts and "\\" not in name


def _session_of(data: bytes) -> str | None:
    """The session a record file belongs to, from its first line (the transcript's and the
    replay record's headers, a token-usage row's request), or None."""
    head = data[:HEAD_BYTES].split(b"\n", 1)[0]
    try:
        value = parse_record(head.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    found = value.get("session_id") or (value.get("id") if value.get("type") == "session" else None)
    return found if isinstance(found, str) else None


def check_run(read: Reader, where: str, label: str, server: str) -> Entry:
    """One run's records, checked; its facts or the problem."""
    manifest = read(MANIFEST_FILE)
    if manifest is None:
        return _unsealed(read, where, label)
    try:
        digests = parse_manifest(manifest.decode("utf-8"), f"{where}/{MANIFEST_FILE}")
    except (UnicodeDecodeError, ValueError) as exc:
        return Problem(label, "inconsistent", str(exc))
    if len(digests) > MAX_NAMED:
        return Problem(label, "inconsistent", f"{where}/{MANIFEST_FILE}: names {len(digests)} files")
    mismatched: list[str] = []
    sessions: set[str] = set()
    session_data: bytes | None = None
    for name in digests:
        if not _safe_name(name):
            return Problem(label, "inconsistent", f"{where}/{MANIFEST_FILE}: names {name!r}, outside the run")
        data = read(name)
        if data is None:
            mismatched.append(f"{where}/{name}: named in {MANIFEST_FILE} but missing")
            continue
        if (problem := digest_problem(name, data, digests)) is not None:
            mismatched.append(f"{where}/{name}: {problem}")
        if (session := _session_of(data)) is not None:
            sessions.add(session)
        if name == SESSION:
            session_data = data
    if session_data is None and not mismatched:
        if read(SESSION) is not None:
            return Problem(label, "inconsistent", f"{where}/{SESSION}: not named in {MANIFEST_FILE}")
        other = f"a gh-aw agent step's records ({GH_AW_SESSION}): not read here" if GH_AW_SESSION in digests else ""
        return Problem(label, "unreadable", f"{where}: holds no {SESSION}" + (f"; {other}" if other else ""))
    facts = _facts(session_data, where, label, server) if session_data is not None else None
    if isinstance(facts, RunFacts) and facts.session_id:
        sessions.add(facts.session_id)
    if mismatched and len(sessions) > 1:
        return Problem(
            label,
            "merged",
            f"{where}: holds the records of {len(sessions)} runs that overwrote each other (several artifacts "
            "downloaded into one folder, as download-artifact's merge-multiple does): download each artifact "
            "into its own folder",
        )
    if mismatched or facts is None:
        return Problem(label, "inconsistent", mismatched[0] if mismatched else f"{where}/{SESSION}: missing")
    return facts


def _unsealed(read: Reader, where: str, label: str) -> Entry:
    """A run without ``records.sha256``: the run that could not start (``result.json`` alone), or
    what cannot be checked."""
    if read(SESSION) is not None:
        return Problem(
            label,
            "older-format",
            f"{where}: no {MANIFEST_FILE} beside {SESSION}: an aw-harness from before records were sealed, "
            "or a run that did not finish its records; they cannot be checked",
        )
    if (result := read(RESULT_FILE)) is not None:
        return not_started(result, label, where)
    if read(GH_AW_SESSION) is not None:
        return Problem(label, "unreadable", f"{where}: a gh-aw agent step's records ({GH_AW_SESSION}): not read here")
    return Problem(label, "unreadable", f"{where}: holds no aw-harness records ({SESSION}, {MANIFEST_FILE})")


def _facts(data: bytes, where: str, label: str, server: str) -> Entry:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Problem(label, "unreadable", f"{where}/{SESSION}: not UTF-8")
    return run_facts(iter_jsonl(text, LineStats()), label, f"{where}/{SESSION}", server)
