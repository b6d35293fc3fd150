"""``aw-harness action``: the container entrypoint of the GitHub Action.

Order matters and is the contract:
1. mask every secret input (``::add-mask::``) before anything else is printed;
2. read and validate the inputs and resolve the run's config from them (a bad one:
   ``::error::`` naming it, outputs, exit 2);
   check who triggered an event-driven run (``github/trigger_gate``): a refusal is a notice,
   the outputs with conclusion ``skipped``, exit 0, and no model request; on a fork's pull
   request the config, extensions, imports and prompt file come from the base commit;
3. run the Harness with all of its output on one guarded stream (``WorkflowLog``): model-produced
   text can never issue a workflow command, each turn is a ``::group::``, steering and budget
   records become ``::warning::`` annotations;
4. write the step outputs, then upload the output folder as an artifact (success or failure);
5. exit with the run's code (0/1/2). An upload problem is a warning, never a different code.

With input ``mode: apply`` the step applies a run's safe outputs instead of running an agent
(``apply_outputs/action_mode.py``; steps 1, 2 and 5 hold, there is no artifact); with
``mode: replay`` it replays a recorded run from its artifact (``replay/action_mode.py``).

SIGINT/SIGTERM (the runner's cancel and step timeout) stop the run; the partial result, outputs
and artifact are flushed and the process exits non-zero within ``CANCEL_TOTAL_S`` of the signal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import IO, cast

from aw_action.apply_outputs.action_mode import run_apply_mode
from aw_action.exits import InvocationError
from aw_action.github import credential_help
from aw_action.github.action_help import action_help
from aw_action.github.action_inputs import ActionInputError, ActionInputs, secret_values
from aw_action.github.action_manifest import ManifestError, action_inputs, unknown_inputs
from aw_action.github.event import TriggerEvent
from aw_action.github.log import WorkflowLog
from aw_action.github.outputs import result_outputs, write_outputs
from aw_action.github.paths import visible_path
from aw_action.github.plan import RunPlan, build_plan
from aw_action.github.trigger_gate import event_appendix, skipped_result, skipped_summary, trigger_decision
from aw_action.github.trigger_guard import TriggerDecision
from aw_action.github.upload import upload_run_artifacts
from aw_action.harness.context import TRANSCRIPT_FILE
from aw_action.harness.guards import harden_process
from aw_action.harness.invocation import Harness
from aw_action.harness.supervisor import exit_soon, stuck_result, supervise
from aw_action.harness.workflow import WorkflowHarness
from aw_action.replay.action_mode import run_replay_mode
from aw_action.run.cancel import CancelClock, StopSignals
from aw_action.run.redact import run_redactor
from aw_action.run.result import RunResult

CANCEL_RUN_S = 3.0
"""After the first signal, the run has this long to wind down before it is abandoned."""
CANCEL_TOTAL_S = 5.0
"""...and outputs plus artifact upload are done by then (the runner escalates at 7.5 s)."""
CANCEL_HARD_S = 5.6
"""Past this, a watchdog writes fallback outputs and ends the process (within 0.3 s more),
whatever still blocks."""


def main(argv: list[str]) -> int:
    if argv in (["--help"], ["-h"]):
        return _help()
    harden_process()
    log = WorkflowLog(sys.stdout)
    env = dict(os.environ)
    for secret in secret_values(env):
        log.mask(secret)
    _warn_unknown_inputs(env, log)
    if argv:  # a workflow's `with: args:` reaches the container as arguments
        message = f"the action takes no arguments (inputs come from INPUT_* variables), got {argv}"
        return _invalid_input(ActionInputError("args", message), env, log)
    stops = StopSignals(CancelClock(), CANCEL_HARD_S)
    stops.install()
    try:
        inputs = ActionInputs.from_env()
        if inputs.mode == "apply":
            return run_apply_mode(inputs, env, log, Path.cwd())
        if inputs.mode == "replay":
            return run_replay_mode(inputs, env, log, stops, CANCEL_RUN_S, CANCEL_TOTAL_S)
        event = TriggerEvent.from_env(env)
        decision = trigger_decision(inputs, event, env)
        if not decision.allowed:
            return _skipped(decision, inputs, event, env, log)
        plan = build_plan(inputs, env, Path.cwd(), event)
    except ActionInputError as exc:
        return _invalid_input(exc, env, log)
    except InvocationError as exc:  # the environment's part of the config (GH_AW_* limits)
        return _invalid_input(exc, env, log)
    return asyncio.run(_run(plan, env, log, stops, event_appendix(inputs, plan.event)))


def _help() -> int:
    try:
        sys.stdout.write(action_help(action_inputs()))
    except ManifestError as exc:
        sys.stderr.write(f"aw-harness action: error: {exc}\n")
        return 2
    return 0


def _warn_unknown_inputs(env: dict[str, str], log: WorkflowLog) -> None:
    """A misspelt ``with:`` key (``max-turn``) would be ignored without a word: say so, naming the
    input it most likely meant (action.yml's, the one list)."""
    try:
        unknown = unknown_inputs(env, action_inputs())
    except ManifestError as exc:
        log.warning(f"cannot check the INPUT_* names: {exc}", title="aw-harness")
        return
    for each in unknown:
        log.warning(each.message(), title="aw-harness: unknown input")


def _skipped(
    decision: TriggerDecision, inputs: ActionInputs, event: TriggerEvent, env: dict[str, str], log: WorkflowLog
) -> int:
    log.notice(decision.reason, title="aw-harness: skipped")
    result = log.redactor.obj(skipped_result(decision, inputs.model).to_json())
    log.write(json.dumps(result, ensure_ascii=False) + "\n")
    _outputs(env, {**result_outputs(result), "artifact-id": ""}, log)
    summary = env.get("GITHUB_STEP_SUMMARY")
    if summary:
        with contextlib.suppress(OSError), open(summary, "a", encoding="utf-8") as fh:
            fh.write(log.redactor.text(skipped_summary(decision, event)))
    log.finish()
    return 0


def _invalid_input(exc: ActionInputError | InvocationError, env: dict[str, str], log: WorkflowLog) -> int:
    if isinstance(exc, ActionInputError):
        log.error(exc.message, title=f"aw-harness: invalid input '{exc.input}'")
    else:
        log.error(str(exc), title="aw-harness")
    result = RunResult.invocation_error(InvocationError(str(exc)), "unknown").to_json()
    log.write(json.dumps(result, ensure_ascii=False) + "\n")
    _outputs(env, {**result_outputs(result), "artifact-id": ""}, log)
    log.finish()
    return 2


async def _run(
    plan: RunPlan, env: dict[str, str], log: WorkflowLog, stops: StopSignals, appendix: tuple[str, str] | None = None
) -> int:
    clock = stops.clock
    stream = cast(IO[str], log)  # a text stream in all but typeshed's nominal sense
    harness: Harness
    if plan.workflow is not None:
        harness = WorkflowHarness(plan.resolved, plan.workflow, plan.env, stderr=stream, readable=True)
    else:
        harness = Harness(plan.resolved, plan.prompt_path, plan.env, stderr=stream, readable=True)
    harness.appendix = appendix
    harness.explain = lambda exc: credential_help.explain(exc, plan.env, action=True)
    # Lines that bypass the harness's sinks (an extension's print) are redacted with the same
    # secrets: credentials set on the step's env:, not only those passed as inputs.
    log.redactor.add(*run_redactor(plan.env, plan.config.observability.otlp.headers).secrets)
    written: list[bool] = []

    def last_words() -> None:
        if not written:
            stuck = log.redactor.obj(stuck_result(harness, stops.reason).to_json())
            _outputs(env, {**result_outputs(stuck), "artifact-id": ""}, log)
        log.error(f"the run did not stop within {CANCEL_HARD_S} s of the stop; exiting", title="aw-harness")
        log.finish()

    stops.last_words = last_words
    with redirect_stdout(log), redirect_stderr(log):
        result = await supervise(harness, stops, CANCEL_RUN_S)
        log.redactor.add(*harness.redactor.secrets)  # and any an extension registered while running
        payload = log.redactor.obj(result.to_json())
        log.write(json.dumps(payload, ensure_ascii=False) + "\n")
        _outputs(env, result_outputs(payload, _session_file(harness, plan, env, result)), log)
        written.append(True)
        artifact_id = ""
        if plan.upload:  # the records the run wrote, even if the agent swapped the folder's path
            name, root = plan.artifact_name, harness.context.records_root() if harness.context else plan.output_dir
            artifact_id = await upload_run_artifacts(env, name, root, log, clock, CANCEL_TOTAL_S)
        _outputs(env, {"artifact-id": artifact_id}, log)
    if result.exit_code != 0:
        error = payload.get("error")
        detail = f": {error}" if error and error != result.stop_reason else ""
        log.error(f"run ended {result.conclusion} (stop reason {result.stop_reason}){detail}", title="aw-harness")
    log.finish()
    exit_soon(result.exit_code)  # the container's process: nothing left behind may keep it alive
    return result.exit_code


def _session_file(harness: Harness, plan: RunPlan, env: dict[str, str], result: RunResult) -> str:
    """The transcript's path as a later step sees it (``paths.visible_path``), when this run
    wrote one (never an earlier run's)."""
    path = harness.output_dir / TRANSCRIPT_FILE
    return visible_path(path, env, plan.workspace) if str(path) in result.files and path.is_file() else ""


def _outputs(env: dict[str, str], outputs: dict[str, str], log: WorkflowLog) -> None:
    try:
        write_outputs(env.get("GITHUB_OUTPUT"), outputs)
    except OSError as exc:
        log.warning(f"could not write step outputs: {exc}", title="aw-harness")
