"""How the action tells a run's end in the job: the records, the summary's records line, the closing
annotation and the log's last line.

Every invocation, a run or one that could not start, ends the same way (``report_end``):

1. the result object goes into the records (the log folds it away: ``github/log.py``) and to
   ``result.json`` in the output folder, written without following a link;
2. the step outputs, then the upload of the output folder as the artifact (when it is on);
3. the step summary's records line is amended with the artifact's link, or says where the records
   are and why they were not uploaded (``sinks/summary_links.py``); the commands that replay the
   run locally are put in, collapsed, only when the artifact was uploaded;
4. one annotation explains how the run ended (``run/explain.py``): ``::error`` for a failure,
   ``::warning`` for a success with something to look at, none for a plain success;
5. the log's last line says how it ended in people's units (``sinks/closing.py``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.github.log import WorkflowLog
from aw_action.github.outputs import result_outputs, write_outputs
from aw_action.github.paths import visible_path
from aw_action.github.upload import Upload, upload_run_artifacts
from aw_action.run.cancel import CancelClock
from aw_action.run.explain import explain
from aw_action.run.explanation import plain
from aw_action.run.record import Reporting
from aw_action.run.result import RESULT_FILE, RunResult
from aw_action.security.records.record_guard import RecordWrites, write_record
from aw_action.sinks.closing import closing_head
from aw_action.sinks.replay_record import replay_hint
from aw_action.sinks.summary_links import (
    TRANSCRIPT,
    amend_records_line,
    amend_replay_line,
    not_uploaded_line,
    uploaded_line,
)

TITLE = "aw-harness"


def write_outputs_or_warn(runner: RunnerFacts, outputs: dict[str, str], log: WorkflowLog) -> None:
    try:
        write_outputs(runner.output_file or None, outputs)
    except OSError as exc:
        log.warning(f"could not write step outputs: {exc}", title=TITLE)


def write_result_file(folder: Path, payload: Mapping[str, Any], records: RecordWrites | None, log: WorkflowLog) -> None:
    """``result.json`` in the records (through the run's held output dir when there is one)."""
    data = (json.dumps(payload, ensure_ascii=False, indent=2) + "\n").encode("utf-8")
    try:
        write_record(folder / RESULT_FILE, data, records)
    except (OSError, ValueError) as exc:
        log.warning(f"{RESULT_FILE} not written: {exc}", title=TITLE)


def announce(result: RunResult, log: WorkflowLog) -> None:
    """The closing annotation (the explanation, once) and the log's last line."""
    explanation = explain(result, "action")
    message = plain(explanation.why) + (f" Fix: {plain(explanation.fix)}" if explanation.fix else "")
    title = f"{TITLE}: {explanation.title}"
    if result.exit_code != 0:
        log.error(message, title=title)
    elif explanation.level == "warning":
        log.warning(message, title=title)
    log.write(closing_head(result) + "\n")


async def report_end(
    result: RunResult,
    payload: Mapping[str, Any],
    *,
    runner: RunnerFacts,
    log: WorkflowLog,
    reporting: Reporting,
    folder: Path,
    workspace: Path,
    records: RecordWrites | None,
    upload: Callable[[], Any] | None,
    session_file: str = "",
    session_id: str = "",
    on_outputs: Callable[[], None] | None = None,
) -> None:
    """Steps 1-5 of the module docstring. ``upload``: the coroutine function that uploads the
    artifact (None when upload is off); ``on_outputs`` is called once the outputs are written."""
    log.write(json.dumps(payload, ensure_ascii=False) + "\n")
    write_result_file(folder, payload, records, log)
    write_outputs_or_warn(runner, result_outputs(payload, session_file, session_id), log)
    if on_outputs is not None:
        on_outputs()
    done = await upload() if upload is not None else Upload(problem="upload-artifacts is false")
    write_outputs_or_warn(runner, {"artifact-id": done.artifact_id}, log)
    summary = runner.step_summary
    if summary:
        session = (folder / TRANSCRIPT).is_file()
        if done.artifact_id and reporting.artifact:
            line = uploaded_line(reporting, reporting.artifact, done.url, session)
        else:
            line = not_uploaded_line(reporting, Path(visible_path(folder, runner, workspace)), done.problem, session)
        commands = result.state.record.replay_commands if result.state is not None else None
        uploaded = bool(done.artifact_id and reporting.artifact)
        hint = replay_hint(commands, reporting.artifact) if commands is not None and uploaded else ""
        with contextlib.suppress(OSError):
            amend_records_line(Path(summary), reporting, log.redactor.text(line))
            amend_replay_line(Path(summary), reporting, log.redactor.text(hint))
    announce(result, log)


def uploader(
    env: Mapping[str, str],
    runner: RunnerFacts,
    name: str,
    root: Path,
    log: WorkflowLog,
    clock: CancelClock,
    budget_s: float,
) -> Callable[[], Any]:
    return lambda: upload_run_artifacts(env, name, root, log, clock, budget_s, runner=runner)
