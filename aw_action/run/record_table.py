"""Every file a run writes at the top of its output dir, one row each: the one table of record files.

A row says:

- ``name``: the file's name, or an ``fnmatch`` pattern for files whose names vary (a bash
  command's spilled output, a safe-output patch);
- ``writer``: the module that writes it (a path under ``aw_action/``);
- ``modes``: the run modes the harness writes it in (``run/mode.py``);
- ``at_start``: what a run does with one an earlier run left (``harness/run_files.py``, through
  ``sinks/previous_run.py``): ``moved`` aside into ``previous-runs/<run>/`` in every mode;
  ``moved-standalone``: moved aside in a standalone run, left alone in gh-aw mode, where the file
  is gh-aw's own business (its ``safeoutputs`` tool writes it); ``kept``: left where it is, a
  resumed run reads it (checked against the ``records.sha256`` beside it);
- ``at_end``: what the seal does with it: ``digested``, the harness wrote it through the run's
  record ledger and ``records.sha256`` holds its digest; ``the-digest``, ``records.sha256``
  itself, written last; ``proposals``, the agent's proposals (the tools' user may append to them
  with ``aw-harness safe-output``: checked when applied, never vouched for). Every file of the
  output dir goes up with the artifact.

A file's name is spelled here and nowhere else: its writer takes it from its row (a writer below
this layer, the transcript's and the manifest's, keeps its constant and the row takes it from
there). The sinks' record writers (``sinks/record_files.py``) each name their row; the audit and
the report read the names from the writers.
"""

from __future__ import annotations

from typing import Literal

from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT_NAME
from aw_action.lazy_dataclass import dataclass
from aw_action.run.mode import RunMode
from aw_action.security.records.record_manifest import MANIFEST_FILE

AtStart = Literal["moved", "moved-standalone", "kept"]
AtEnd = Literal["digested", "the-digest", "proposals"]
EVERY_MODE: frozenset[RunMode] = frozenset({"standalone", "gh-aw"})


@dataclass(frozen=True)
class RecordFile:
    name: str
    writer: str
    modes: frozenset[RunMode]
    at_start: AtStart
    at_end: AtEnd = "digested"

    @property
    def pattern(self) -> bool:
        """``name`` is an ``fnmatch`` pattern, not a file's name."""
        return any(c in self.name for c in "*?[")

    def moved_at_start(self, in_gh_aw: bool) -> bool:
        """Whether a run (in gh-aw mode or not) moves an earlier run's file aside."""
        return self.at_start == "moved" or (self.at_start == "moved-standalone" and not in_gh_aw)


TRANSCRIPT = RecordFile(TRANSCRIPT_NAME, "agent/transcript.py", EVERY_MODE, "moved")
REPLAY = RecordFile("replay.jsonl", "sinks/replay_record.py", EVERY_MODE, "moved")
PROVENANCE = RecordFile("context-provenance.jsonl", "sinks/provenance_file.py", EVERY_MODE, "moved")
TOKEN_USAGE = RecordFile("token-usage.jsonl", "sinks/token_usage.py", frozenset({"standalone"}), "moved")
UNIFIED_SESSION = RecordFile("aw_session.jsonl", "sinks/unified_session.py", frozenset({"standalone"}), "moved")
AGENT_SESSION = RecordFile("agent-session.jsonl", "sinks/agent_session_events.py", frozenset({"gh-aw"}), "moved")
STRUCTURED_OUTPUT = RecordFile("structured-output.json", "structured/final_answer.py", EVERY_MODE, "moved")
MANIFEST = RecordFile(MANIFEST_FILE, "security/records/record_manifest.py", EVERY_MODE, "moved", "the-digest")
EVENTS = RecordFile("events.jsonl", "sinks/jsonl.py", EVERY_MODE, "moved")
RESULT = RecordFile("result.json", "github/run_report.py", EVERY_MODE, "moved")
BASH_SPILL = RecordFile("bash-*.log", "tools/bash_output.py", EVERY_MODE, "moved")
SAFE_OUTPUTS = RecordFile(
    "safe-outputs.jsonl", "safe_outputs/records.py", frozenset({"standalone"}), "moved-standalone", "proposals"
)
SAFE_OUTPUTS_CONFIG = RecordFile(
    "safe-outputs.config.json", "safe_outputs/config.py", frozenset({"standalone"}), "moved-standalone"
)
SAFE_OUTPUT_PATCHES = RecordFile(
    "aw-*.patch", "safe_outputs/kinds/patched.py", frozenset({"standalone"}), "moved-standalone"
)
WORKFLOW_CHECKPOINT = RecordFile("workflow-checkpoint.json", "harness/workflow.py", EVERY_MODE, "kept")

RECORD_TABLE: tuple[RecordFile, ...] = (
    TRANSCRIPT,
    REPLAY,
    PROVENANCE,
    TOKEN_USAGE,
    UNIFIED_SESSION,
    AGENT_SESSION,
    STRUCTURED_OUTPUT,
    MANIFEST,
    EVENTS,
    RESULT,
    BASH_SPILL,
    SAFE_OUTPUTS,
    SAFE_OUTPUTS_CONFIG,
    SAFE_OUTPUT_PATCHES,
    WORKFLOW_CHECKPOINT,
)
"""In the order a later run moves them aside (names first, then patterns)."""


def moved_at_start(in_gh_aw: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names and the patterns of what a run moves aside when it starts."""
    rows = [row for row in RECORD_TABLE if row.moved_at_start(in_gh_aw)]
    return tuple(r.name for r in rows if not r.pattern), tuple(r.name for r in rows if r.pattern)
