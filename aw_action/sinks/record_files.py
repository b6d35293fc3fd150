"""The record writers of the run's sinks: one class each, behind ``record_writer.RecordWriter``.

Every record file is a row of the one table, ``run/record_table.py`` (its name, its writer, the
modes it is written in, what happens to it at a run's start and end); each writer here names its
row (``RecordWriter.row``) and takes its file's name and modes from it. Observability makes
the writers of the run's mode and fans the run's events out to them; ``harness/run_files.py``
moves an earlier run's files aside by the table; the audit reads the ones it understands by the
writers' names.

The order is the order the writers finish in at shutdown: the files that close with the run's
summary (its degraded parts included) last, so a failure finishing an earlier one is in it.
"""

from __future__ import annotations

from aw_action.run.mode import RunMode
from aw_action.sinks.agent_session_events import AgentSessionRecorder
from aw_action.sinks.provenance_file import ProvenanceFile
from aw_action.sinks.record_writer import RecordWriter
from aw_action.sinks.replay_record import ReplayRecord
from aw_action.sinks.token_usage import TokenUsageFile
from aw_action.sinks.unified_session import UnifiedSession

__all__ = [
    "RECORD_WRITERS",
    "AgentSessionRecorder",
    "ProvenanceFile",
    "ReplayRecord",
    "TokenUsageFile",
    "UnifiedSession",
    "file_names",
    "writers_for",
]

RECORD_WRITERS: tuple[type[RecordWriter], ...] = (
    ReplayRecord,
    ProvenanceFile,
    TokenUsageFile,
    UnifiedSession,
    AgentSessionRecorder,
)


def writers_for(mode: RunMode) -> tuple[type[RecordWriter], ...]:
    """The writers a run in ``mode`` has, in finishing order."""
    return tuple(writer for writer in RECORD_WRITERS if mode in writer.modes)


def file_names() -> tuple[str, ...]:
    """Every record file a sink may write, whatever the mode."""
    return tuple(writer.file_name for writer in RECORD_WRITERS)
