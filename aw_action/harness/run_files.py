"""Starting a run's files afresh: an earlier run's moved aside, by the one record table.

Every record file a run writes at the top of the output dir is a row of ``run/record_table.py``,
which says what a run does with one an earlier run left: ``start_afresh`` moves whatever an
earlier run left under those names into ``previous-runs/<run>/`` (``sinks/previous_run.py``)
before the run opens any of them, so the files at the documented paths are this run's alone and
the earlier ones are kept. (A workflow checkpoint stays: a resumed run reads it where it is,
checked against the ``records.sha256`` beside it, before anything moves.)

In gh-aw mode (``GITHUB_AW=true``) the safe-output files are gh-aw's own business (its
``safeoutputs`` tool writes them; the harness offers no safe-output tools there), so they are
left where they are (``at_start: moved-standalone``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aw_action.exits import InvocationError
from aw_action.run.mode import gh_aw_mode
from aw_action.run.record_table import moved_at_start
from aw_action.sinks.previous_run import RunFiles, move_aside


def run_files(env: Mapping[str, str]) -> RunFiles:
    """What a run moves aside when it starts: the rows of ``run/record_table.py`` whose
    ``at_start`` says so in this run's mode."""
    return RunFiles(*moved_at_start(gh_aw_mode(env)))


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
