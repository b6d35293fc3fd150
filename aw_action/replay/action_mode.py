"""The action's ``mode: replay``: a recorded run replayed in the job's workspace, as a regression
test of the code the agent works on (docs/replay.md).

Inputs: ``replay-records`` (the recorded run's artifact: the folder ``actions/download-artifact``
made, or its zip; relative to the workspace, or under ``runner.temp`` as the workflow wrote it),
and as for a run ``output-dir``, ``upload-artifacts`` and ``artifact-name`` for the replay's own
records. The downloaded artifact must lie outside the workspace (``prepare.check_apart``): a
replayed ``ls`` would see it and the replayed commands could change it.

Trust (docs/security.md, "Replay's trust rules"): the trigger guard has let the event through
(``action.py`` asks it before any mode but ``apply``), and on a fork's pull request the recorded
config's path extensions and ``output-schema`` come from the base commit (``ForkFiles.pin``, as a
live run's do), never the pull request's checkout; one the base lacks ends the replay (exit 2).

The replay runs as ``aw-harness replay`` does (``runner.ReplayHarness``), its output on the
step log's guard (the records hold the agent's text: none of it may act as a workflow command),
under the action's stop scheme. Then the report object, the outputs (``replay``,
``conclusion``, ``exit-code``, and the replay run's usage), the replay's records as an artifact,
and the exit code: 0 the same, 1 diverged (the step fails: an ``::error::`` names the turn and
the call, the diff is in the log and the step summary), 2 records or inputs refused (the step
summary says why and what to do: ``report.refused_summary``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import replace
from pathlib import Path
from typing import IO, Any, cast

from aw_action.environment.runner import RUNTIME_VARS, RunnerFacts
from aw_action.exits import InvocationError
from aw_action.github.action_inputs import ActionInputError, ActionInputs
from aw_action.github.event import TriggerEvent
from aw_action.github.fork_files import ForkFiles
from aw_action.github.log import WorkflowLog
from aw_action.github.outputs import REPLAY_OUTPUT_NAMES, result_outputs
from aw_action.github.paths import container_path, visible_path
from aw_action.github.plan import default_artifact_name, made_output_dir
from aw_action.github.run_report import write_outputs_or_warn
from aw_action.github.upload import Upload, upload_run_artifacts
from aw_action.harness.supervisor import supervise
from aw_action.replay.prepare import prepare
from aw_action.replay.report import people_lines, refused_summary, report_object
from aw_action.replay.runner import ReplayHarness
from aw_action.run.cancel import StopSignals
from aw_action.run.record import IgnoredInput, Reporting
from aw_action.sinks.summary_links import amend_records_line, not_uploaded_line, uploaded_line

TITLE = "aw-harness: replay"


def replay_inputs(inputs: ActionInputs, runner: RunnerFacts, workspace: Path) -> tuple[Path, Path]:
    """The recording's path and the replay's output folder; ``ActionInputError`` naming the input."""
    if not inputs.replay_records:
        raise ActionInputError("replay-records", "required with mode: replay (the recorded run's artifact)")
    return container_path(inputs.replay_records, runner, workspace), made_output_dir(inputs, runner, workspace)


def run_replay_mode(
    inputs: ActionInputs,
    env: Mapping[str, str],
    runner: RunnerFacts,
    log: WorkflowLog,
    stops: StopSignals,
    wind_down_s: float,
    total_s: float,
    event: TriggerEvent,
    ignored: tuple[IgnoredInput, ...] = (),
) -> int:
    """Replay, report, upload; ``ActionInputError`` for a missing or unusable input. ``event``
    has passed the trigger guard (``action.py``); on a fork's pull request what the harness
    imports comes from the base commit (``ForkFiles.pin``), as in a live run. ``ignored``: the
    ``INPUT_*`` names action.yml does not declare, named on the summary's first screen.
    ``runner``: the action's record of the runner's facts (of ``env``)."""
    workspace = runner.workspace_or(Path.cwd())
    records, out = replay_inputs(inputs, runner, workspace)
    fork = ForkFiles.for_event(event.name, event.payload, runner, workspace, inputs.github_token)
    harness_env = {k: v for k, v in env.items() if not k.upper().startswith("INPUT_") and k not in RUNTIME_VARS}
    try:
        recording, options = prepare(
            records, workspace=workspace, env=harness_env, runner=runner.without_runtime(), output_dir=out
        )
        if fork is not None:
            log.notice(fork.check.reason, title=TITLE)
            options = replace(options, pin=fork.pin)
        harness = ReplayHarness(recording, options, harness_env, stderr=cast(IO[str], log), readable=True)
        name = inputs.artifact_name or default_artifact_name(runner, "aw-harness-replay")
        artifact = name if inputs.upload_artifacts else None
        harness.reporting = replace(harness.reporting, audience="action", artifact=artifact, ignored_inputs=ignored)
    except (ActionInputError, InvocationError) as exc:  # the records, or a fork's file the base commit lacks
        log.error(str(exc), title=TITLE)
        _summary(runner, log, refused_summary(inputs.replay_records or "", str(exc)))
        return _finish(report_object(None, None, None, None, str(exc)), runner, log)

    async def replay_and_upload() -> tuple[dict[str, Any], Upload]:
        """One event loop for both: the stop scheme's clock belongs to the loop it first waited in."""
        result = await supervise(harness, stops, wind_down_s)
        report = harness.redactor.obj(report_object(harness.verdict, recording, result, out))
        for line in people_lines(report):
            log.write(line + "\n")
        root = harness.context.records_root() if harness.context else out
        done = Upload(problem="upload-artifacts is false")
        if artifact is not None:
            done = await upload_run_artifacts(env, artifact, root, log, stops.clock, total_s, runner=runner)
        _records_line(runner, log, harness.reporting, done, Path(visible_path(root, runner, workspace)))
        return report, done

    with redirect_stdout(log), redirect_stderr(log):
        report, done = asyncio.run(replay_and_upload())
        artifact_id = done.artifact_id
    if report["exit_code"] != 0:
        log.error(str(report["message"]), title=f"{TITLE}: {report['replay']}")
    return _finish(report, runner, log, artifact_id)


def _records_line(runner: RunnerFacts, log: WorkflowLog, reporting: Reporting, done: Upload, folder: Path) -> None:
    """The summary's records line, as a run's: the replay's artifact with its link, or where its
    records are and why they were not uploaded (``sinks/summary_links.py``)."""
    summary = runner.step_summary
    if not summary:
        return
    if done.artifact_id and reporting.artifact:
        line = uploaded_line(reporting, reporting.artifact, done.url)
    else:
        line = not_uploaded_line(reporting, folder, done.problem)
    with contextlib.suppress(OSError):
        amend_records_line(Path(summary), reporting, log.redactor.text(line))


def _summary(runner: RunnerFacts, log: WorkflowLog, text: str) -> None:
    """Append ``text`` to the step summary, redacted; a write that fails is a warning."""
    summary = runner.step_summary
    if not summary:
        return
    try:
        with open(summary, "a", encoding="utf-8") as fh:
            fh.write(log.redactor.text(text))
    except OSError as exc:
        log.warning(f"step summary not written: {exc.strerror or exc}", title=TITLE)


def _finish(report: dict[str, Any], runner: RunnerFacts, log: WorkflowLog, artifact_id: str = "") -> int:
    log.write(json.dumps(report, ensure_ascii=False) + "\n")
    code = int(report["exit_code"])
    outputs = result_outputs(report["run"]) if report["run"] else {}
    [verdict] = REPLAY_OUTPUT_NAMES
    conclusion = "success" if code == 0 else "failure"
    outputs.update({verdict: str(report["replay"]), "conclusion": conclusion, "exit-code": str(code)})
    outputs["artifact-id"] = artifact_id
    write_outputs_or_warn(runner, outputs, log)
    log.finish()
    return code
