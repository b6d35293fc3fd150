"""The files one run writes in its output dir, listed in one place, and starting them afresh.

Every record file a run writes at the top of the output dir is named here, the sinks' from their
table (``sinks/record_files.py``), the others from their writers: ``start_afresh`` moves whatever
an earlier run left under those names into ``previous-runs/<run>/`` (``sinks/previous_run.py``)
before the run opens any of them, so the files at the documented paths are this run's alone and
the earlier ones are kept.

In gh-aw mode (``GITHUB_AW=true``) the safe-output files are gh-aw's own business (its
``safeoutputs`` tool writes them; the harness offers no safe-output tools there), so they are
left where they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aw_action.exits import InvocationError
from aw_action.harness.context import TRANSCRIPT_FILE
from aw_action.run.mode import gh_aw_mode
from aw_action.run.result import RESULT_FILE
from aw_action.safe_outputs.config import CONFIG_FILE as SAFE_OUTPUTS_CONFIG_FILE
from aw_action.safe_outputs.records import RECORDS_FILE as SAFE_OUTPUTS_FILE
from aw_action.security.records.record_manifest import MANIFEST_FILE
from aw_action.sinks import record_files
from aw_action.sinks.jsonl import EVENTS_FILE
from aw_action.sinks.previous_run import RunFiles, move_aside
from aw_action.structured.final_answer import STRUCTURED_OUTPUT_FILE

RECORD_FILES: tuple[str, ...] = (
    TRANSCRIPT_FILE,
    *record_files.file_names(),
    STRUCTURED_OUTPUT_FILE,
    MANIFEST_FILE,
    EVENTS_FILE,
    RESULT_FILE,
)
"""The run's records, at the paths the docs (and gh-aw) name. (The workflow checkpoint stays:
a resumed run reads it where it is, checked against the ``records.sha256`` beside it, before
anything moves.)"""
BASH_SPILL_FILES = "bash-*.log"
"""A command's full output when it was too long for the model (``tools/bash_output.py``)."""
SAFE_OUTPUT_FILES: tuple[str, ...] = (SAFE_OUTPUTS_FILE, SAFE_OUTPUTS_CONFIG_FILE)
SAFE_OUTPUT_PATCHES = "aw-*.patch"
"""``safe_outputs/patch.patch_file_name``."""


def run_files(env: Mapping[str, str]) -> RunFiles:
    if gh_aw_mode(env):
        return RunFiles(RECORD_FILES, (BASH_SPILL_FILES,))
    return RunFiles(RECORD_FILES + SAFE_OUTPUT_FILES, (BASH_SPILL_FILES, SAFE_OUTPUT_PATCHES))


def start_afresh(output_dir: Path, env: Mapping[str, str]) -> Path | None:
    """Move an earlier run's files aside; the folder they went to, or None. Raises
    ``InvocationError`` (exit 2) when one cannot be moved: the run would write over it."""
    try:
        return move_aside(output_dir, run_files(env))
    except OSError as exc:
        raise InvocationError(
            f"output dir {output_dir}: the earlier run's records cannot be moved aside ({exc}); "
            "free the folder or set another output dir"
        ) from None
