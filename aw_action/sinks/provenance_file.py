"""``context-provenance.jsonl``: one record per context entry, in the order entries were added.

Fields are spec §8.5.2's and nothing else (``timestamp``, ``source``, ``path``, ``tokens``,
``cumulative_tokens``, ``role``): whatever else an entry carries in ``RunState.provenance`` is
dropped here, so prompt or response text can never reach the file (spec §13). Written
incrementally: ``sync`` appends the entries added since the last call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aw_action.agent.events import AgentEvent, TurnEnd
from aw_action.run import record_table
from aw_action.sinks.record_writer import JsonlRecordWriter, SessionInfo

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

FILE_NAME = record_table.PROVENANCE.name
FIELDS = ("timestamp", "source", "path", "tokens", "cumulative_tokens", "role")
ROLES = frozenset({"user", "assistant", "system"})


def provenance_record(entry: dict[str, Any]) -> dict[str, Any]:
    record = {k: entry[k] for k in FIELDS if entry.get(k) is not None}
    record["tokens"] = int(record.get("tokens", 0))
    record["cumulative_tokens"] = int(record.get("cumulative_tokens", 0))
    if record.get("role") not in ROLES:
        record["role"] = "user"
    return record


class ProvenanceFile(JsonlRecordWriter):
    """Appends the entries ``RunState`` gained since the last call: at the start, after each
    turn, and at the end (the file exists even when no entry was recorded)."""

    row = record_table.PROVENANCE
    subsystem = "context-provenance"

    def sync(self) -> None:
        for entry in self.state.record.provenance[self.file.lines :]:
            self.file.write(provenance_record(entry))

    def start(self, session: SessionInfo) -> None:
        self.sync()

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, TurnEnd):
            self.sync()

    def finish(self, result: RunResult) -> None:
        self.sync()
        self.file.ensure()
        super().finish(result)
