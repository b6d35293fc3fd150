"""``records.sha256``: the SHA-256 of every record the run wrote, as the harness wrote it.

Written last, after every agent process is dead and every record closed, into the output dir
the run holds (so it travels with the artifact), in ``sha256sum`` format (``sha256sum -c
records.sha256`` in the folder checks them): one line ``<hex>  <name>`` per file of the record
ledger under the output dir, names relative to it. A file changed after the run wrote it (by
the agent while it ran, or by anyone before a later job reads it) no longer matches its line.

A later run trusts a file it reads back only as far as this: ``file_problem`` checks a file
against the ``records.sha256`` beside it, when there is one and it names the file (a workflow
checkpoint on resume).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from aw_action.security.records.record_guard import RecordLedger

MANIFEST_FILE = "records.sha256"
_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")
MAX_MANIFEST_BYTES = 1024 * 1024


def manifest_text(ledger: RecordLedger) -> bytes:
    """The manifest of what ``ledger`` recorded under its directory, one line per file."""
    lines = []
    for path, digest in ledger.digests().items():
        if path.is_relative_to(ledger.directory) and path.name != MANIFEST_FILE:
            lines.append(f"{digest}  {path.relative_to(ledger.directory).as_posix()}\n")
    return "".join(lines).encode("utf-8")


def write_manifest(ledger: RecordLedger) -> Path:
    """Write ``records.sha256`` into the held output dir; returns its path."""
    path = ledger.directory / MANIFEST_FILE
    ledger.replace(path, manifest_text(ledger))
    return path


def _read(path: Path, limit: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        data = b""
        while len(data) <= limit and (chunk := os.read(fd, 1 << 20)):
            data += chunk
        return data
    finally:
        os.close(fd)


def recorded_digest(path: Path) -> str | None:
    """The digest the ``records.sha256`` beside ``path`` holds for it; None when there is no
    manifest or it does not name the file. ``ValueError`` when the manifest is unreadable."""
    manifest = path.parent / MANIFEST_FILE
    try:
        text = _read(manifest, MAX_MANIFEST_BYTES).decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{manifest} cannot be read: {exc}") from None
    return parse_manifest(text, str(manifest)).get(path.name)


def parse_manifest(text: str, where: str) -> dict[str, str]:
    """A manifest's digests by name (the first line for a name counts); ``ValueError`` naming
    ``where`` and the line when one is not ``<sha256>  <name>``."""
    digests: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        found = _LINE.match(line)
        if found is None:
            raise ValueError(f"{where}:{number}: not a '<sha256>  <name>' line")
        digests.setdefault(found.group(2), found.group(1))
    return digests


def digest_problem(name: str, data: bytes, digests: dict[str, str]) -> str | None:
    """Why ``data``, read as the record ``name``, is not what its run wrote by ``digests`` (a
    parsed manifest), or None when it is. The one wording of both refusals, for every reader of
    an artifact (the replay, the report)."""
    expected = digests.get(name)
    if expected is None:
        return f"not named in {MANIFEST_FILE}: not a record its run wrote"
    if hashlib.sha256(data).hexdigest() != expected:
        return f"changed or cut short since its run wrote it (its SHA-256 is not the one {MANIFEST_FILE} records)"
    return None


def file_problem(path: Path, max_bytes: int) -> str | None:
    """Why ``path`` is not the file its run recorded in the ``records.sha256`` beside it, or
    None (it matches, or nothing beside it names it)."""
    try:
        expected = recorded_digest(path)
    except ValueError as exc:
        return str(exc)
    if expected is None:
        return None
    try:
        actual = hashlib.sha256(_read(path, max_bytes)).hexdigest()
    except OSError as exc:
        return f"cannot be read to check it against {MANIFEST_FILE}: {exc}"
    if actual != expected:
        return f"changed since its run wrote it (its SHA-256 is not the one {MANIFEST_FILE} beside it records)"
    return None
