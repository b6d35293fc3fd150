"""``context-provenance.jsonl``: one record per context entry, in the order entries were added.

Fields are spec §8.5.2's and nothing else (``timestamp``, ``source``, ``path``, ``tokens``,
``cumulative_tokens``, ``role``): whatever else an entry carries in ``RunState.provenance`` is
dropped here, so prompt or response text can never reach the file (spec §13). Written
incrementally: ``sync`` appends the entries added since the last call.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aw_action.run.redact import Redactor
from aw_action.security.record_guard import RecordWrites
from aw_action.sinks.files import JsonlFile

FILE_NAME = "context-provenance.jsonl"
FIELDS = ("timestamp", "source", "path", "tokens", "cumulative_tokens", "role")
ROLES = frozenset({"user", "assistant", "system"})


def provenance_record(entry: dict[str, Any]) -> dict[str, Any]:
    record = {k: entry[k] for k in FIELDS if entry.get(k) is not None}
    record["tokens"] = int(record.get("tokens", 0))
    record["cumulative_tokens"] = int(record.get("cumulative_tokens", 0))
    if record.get("role") not in ROLES:
        record["role"] = "user"
    return record


class ProvenanceFile:
    def __init__(self, output_dir: Path, redactor: Redactor, records: RecordWrites | None = None) -> None:
        self.file = JsonlFile(output_dir / FILE_NAME, redactor, records)

    @property
    def path(self) -> Path:
        return self.file.path

    def sync(self, entries: Sequence[dict[str, Any]]) -> None:
        for entry in entries[self.file.lines :]:
            self.file.write(provenance_record(entry))

    def close(self) -> None:
        self.file.close()
