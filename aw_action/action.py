"""``aw-harness action``: the container entrypoint of the GitHub Action.

Order matters and is the contract:
1. mask every secret input (``::add-mask::``) before anything else is printed;
2. read and validate the inputs and resolve the run's config from them (a bad one:
   ``::error::`` naming it, outputs, exit 2);
   check who triggered an event-driven run (``github/trigger_gate``): a refusal is a notice,
   the outputs with conclusion ``skipped``, exit 0, and no model request; on a fork's pull
   request the config, extensions, imports and prompt file come from the base commit;
3. run the Harness with all of its output on one guarded stream (``WorkflowLog``): model-produced
   text can never issue a workflow command, the log reads as text (the JSONL records folded into
   groups, or with ``log-format: file`` into ``events.jsonl``), each turn is a ``::group::``,
   steering and warning records become ``::warning::`` annotations;
4. report the end (``github/run_report.py``): the result into the records and ``result.json``,
   the step outputs, the artifact upload (success or failure), the summary's records line with
   the artifact's link, one annotation explaining the end, the log's closing line. A run that
   could not start (a bad input, an unknown model, a malformed ``GH_AW_*`` limit) is reported
   the same way, with its failure summary;
5. exit with the run's code (0/1/2). An upload problem is a warning, never a different code.

With input ``mode: apply`` the step applies a run's safe outputs instead of running an agent
(``apply_outputs/action_mode.py``; steps 1, 2 and 5 hold, there is no artifact); with
``mode: replay`` it replays a recorded run from its artifact (``replay/action_mode.py``); with
``mode: report`` it reports on the artifacts of the runs before it (``report/action_mode.py``).

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
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError, Setting
from aw_action.github import credential_help
from aw_action.github.action_help import action_help
from aw_action.github.action_inputs import ActionInputError, ActionInputs, raw_input, secret_values
from aw_action.github.action_manifest import ManifestError, action_inputs, defaults_not_applied, unknown_inputs
from aw_action.github.continue_inputs import ContinueRequest
from aw_action.github.event import TriggerEvent
from aw_action.github.log import WorkflowLog
from aw_action.github.outputs import result_outputs
from aw_action.github.paths import visible_path
from aw_action.github.plan import RunPlan, build_plan, fallback_records
from aw_action.github.run_report import report_end, uploader, write_outputs_or_warn
from aw_action.github.trigger_gate import event_appendix, skipped_result, skipped_summary, trigger_decision
from aw_action.github.trigger_guard import TriggerDecision
from aw_action.harness.context import TRANSCRIPT_FILE
from aw_action.harness.continuation import Continuation
from aw_action.harness.guards import harden_process
from aw_action.harness.invocation import Harness
from aw_action.harness.run_files import start_afresh
from aw_action.harness.supervisor import exit_soon, stuck_result, supervise
from aw_action.harness.workflow import WorkflowHarness
from aw_action.run.cancel import CancelClock, StopSignals
from aw_action.run.record import IgnoredInput, Reporting
from aw_action.run.redact import run_redactor
from aw_action.run.result import RunResult
from aw_action.sinks.invocation_failure import report_invocation_error
from aw_action.sinks.jsonl import EVENTS_FILE, JsonlSink

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
    runner = RunnerFacts.read(env)  # once: every mode gets this record
    for secret in secret_values(env):
        log.mask(secret)
    ignored = _warn_unknown_inputs(env, log)
    stops = StopSignals(CancelClock(), CANCEL_HARD_S)
    if argv:  # a workflow's `with: args:` reaches the container as arguments
        message = f"the action takes no arguments (inputs come from INPUT_* variables), got {argv}"
        return asyncio.run(
            _invalid(InvocationError(message, Setting("args", "input")), env, runner, log, stops, ignored)
        )
    stops.install()
    try:
        inputs = ActionInputs.from_env()
        if inputs.mode == "apply":
            return run_apply_mode(inputs, env, runner, log, Path.cwd())
        if inputs.mode == "report":
            from aw_action.report.action_mode import run_report_mode  # only a report pays for it

            return run_report_mode(inputs, runner, log)
        event = TriggerEvent.from_runner(runner)
        decision = trigger_decision(inputs, event, env, runner)  # a replay trusts what a live run trusts, no more
        if not decision.allowed:
            return _skipped(decision, inputs, event, runner, log)
        if inputs.mode == "replay":
            from aw_action.replay.action_mode import run_replay_mode  # only a replay pays for it

            return run_replay_mode(inputs, env, runner, log, stops, CANCEL_RUN_S, CANCEL_TOTAL_S, event, ignored)
        plan = build_plan(inputs, env, Path.cwd(), event, runner)
    except ActionInputError as exc:
        return asyncio.run(_invalid(exc.invocation_error(), env, runner, log, stops, ignored))
    except InvocationError as exc:  # the environment's part of the config (GH_AW_* limits)
        return asyncio.run(_invalid(exc, env, runner, log, stops, ignored))
    if inputs.log_format == "file":
        log.use_records_file(plan.output_dir / EVENTS_FILE)
    return asyncio.run(_run(plan, env, runner, log, stops, event_appendix(inputs, plan.event), ignored))


def _help() -> int:
    try:
        sys.stdout.write(action_help(action_inputs()))
    except ManifestError as exc:
        sys.stderr.write(f"aw-harness action: error: {exc}\n")
        return 2
    return 0


def _warn_unknown_inputs(env: dict[str, str], log: WorkflowLog) -> tuple[IgnoredInput, ...]:
    """A misspelt ``with:`` key (``max-turn``) would be ignored without a word: say so, naming the
    input it most likely meant (action.yml's, the one list); the step summary's first screen
    says it too (``Reporting.ignored_inputs``). In a ``uses: docker://`` step the runner applies
    none of action.yml's defaults: an input whose default it did not evaluate is named too."""
    try:
        declared = action_inputs()
    except ManifestError as exc:
        log.warning(f"cannot check the INPUT_* names: {exc}", title="aw-harness")
        return ()
    unknown = unknown_inputs(env, declared)
    for each in unknown:
        log.warning(each.message(), title="aw-harness: unknown input")
    for missing in defaults_not_applied(env, declared):
        log.warning(missing.message(), title="aw-harness: input without its default")
    return tuple(IgnoredInput(each.variable, each.likely.name if each.likely else None) for each in unknown)


def _skipped(
    decision: TriggerDecision, inputs: ActionInputs, event: TriggerEvent, runner: RunnerFacts, log: WorkflowLog
) -> int:
    log.notice(decision.reason, title="aw-harness: skipped")
    result = log.redactor.obj(skipped_result(decision, inputs.model).to_json())
    log.write(json.dumps(result, ensure_ascii=False) + "\n")
    write_outputs_or_warn(runner, {**result_outputs(result), "artifact-id": ""}, log)
    summary = runner.step_summary
    if summary:
        with contextlib.suppress(OSError), open(summary, "a", encoding="utf-8") as fh:
            fh.write(log.redactor.text(skipped_summary(decision, event)))
    log.finish()
    return 0


async def _invalid(
    exc: InvocationError,
    env: dict[str, str],
    runner: RunnerFacts,
    log: WorkflowLog,
    stops: StopSignals,
    ignored: tuple[IgnoredInput, ...] = (),
) -> int:
    """A run that could not start: its records, failure summary, outputs and artifact, and one
    annotation that says what to change (``github/run_report.py``)."""
    workspace = runner.workspace_or(Path.cwd())
    records = fallback_records(env, runner, workspace)
    if records.log_format == "file":
        log.use_records_file(records.folder / EVENTS_FILE)
    workflow = runner.workflow or None
    artifact = records.artifact if records.upload else None
    reporting = Reporting("action", artifact=artifact, workflow=workflow, ignored_inputs=ignored)
    result = RunResult.invocation_error(exc, raw_input(env, "model") or "unknown")
    with contextlib.suppress(InvocationError, OSError):
        start_afresh(records.folder, env)
        records.folder.mkdir(parents=True, exist_ok=True)
    report_invocation_error(result, reporting, runner, JsonlSink(log.redactor, cast(IO[str], log)), log.redactor)
    upload = (
        uploader(env, runner, records.artifact, records.folder, log, stops.clock, CANCEL_TOTAL_S)
        if records.upload
        else None
    )
    payload = log.redactor.obj(result.to_json())
    await report_end(
        result,
        payload,
        runner=runner,
        log=log,
        reporting=reporting,
        folder=records.folder,
        workspace=workspace,
        records=None,
        upload=upload,
    )
    log.finish()
    return 2


async def _run(
    plan: RunPlan,
    env: dict[str, str],
    runner: RunnerFacts,
    log: WorkflowLog,
    stops: StopSignals,
    appendix: tuple[str, str] | None = None,
    ignored: tuple[IgnoredInput, ...] = (),
) -> int:
    clock = stops.clock
    stream = cast(IO[str], log)  # a text stream in all but typeshed's nominal sense
    harness: Harness
    if plan.workflow is not None:
        harness = WorkflowHarness(
            plan.resolved, plan.workflow, plan.env, stderr=stream, readable=True, runner_facts=plan.runner
        )
    else:
        harness = Harness(
            plan.resolved, plan.prompt_path, plan.env, stderr=stream, readable=True, runner_facts=plan.runner
        )
    harness.appendix = appendix
    request = plan.continuation
    if request is not None:
        if request.untrusted:
            log.warning(f"continuing anyway (continue-from-untrusted): {request.untrusted}", title="aw-harness")
        harness.continue_from = lambda: _continuation(request)
    harness.explain = lambda exc: credential_help.explain(exc, plan.runner, action=True)
    harness.reporting = Reporting(
        "action", artifact=plan.artifact_name if plan.upload else None, ignored_inputs=ignored
    )
    # Lines that bypass the harness's sinks (an extension's print) are redacted with the same
    # secrets: credentials set on the step's env:, not only those passed as inputs.
    log.redactor.add(*run_redactor(plan.env, plan.config.observability.otlp.headers).secrets)
    written: list[bool] = []

    def last_words() -> None:
        if not written:
            stuck = log.redactor.obj(stuck_result(harness, stops.reason).to_json())
            write_outputs_or_warn(runner, {**result_outputs(stuck), "artifact-id": ""}, log)
        log.error(f"the run did not stop within {CANCEL_HARD_S} s of the stop; exiting", title="aw-harness")
        log.finish()

    stops.last_words = last_words
    with redirect_stdout(log), redirect_stderr(log):
        result = await supervise(harness, stops, CANCEL_RUN_S)
        log.redactor.add(*harness.redactor.secrets)  # and any an extension registered while running
        context = harness.context
        root = context.records_root() if context is not None else plan.output_dir
        ledger = context.guards.ledger if context is not None and context.guards is not None else None
        upload = uploader(env, runner, plan.artifact_name, root, log, clock, CANCEL_TOTAL_S) if plan.upload else None
        await report_end(
            result,
            log.redactor.obj(result.to_json()),
            runner=runner,
            log=log,
            reporting=harness.reporting,
            folder=root,
            workspace=plan.workspace,
            records=ledger,
            upload=upload,
            session_file=_session_file(harness, plan, runner, result),
            session_id=context.session.session_id if context is not None else "",
            on_outputs=lambda: written.append(True),
        )
    log.finish()
    exit_soon(result.exit_code)  # the container's process: nothing left behind may keep it alive
    return result.exit_code


def _continuation(request: ContinueRequest) -> Continuation:
    """The earlier run's conversation (its reader imported only when a run continues one)."""
    from aw_action.replay.continuation import read_continuation

    vouched = request.run_id if request.untrusted is None else None  # waived: its run proves nothing
    try:
        return read_continuation(request.path, "continue-from", vouched)
    except InvocationError as exc:  # the fix names the input
        raise InvocationError(str(exc), Setting("continue-from", "input")) from None


def _session_file(harness: Harness, plan: RunPlan, runner: RunnerFacts, result: RunResult) -> str:
    """The transcript's path as a later step sees it (``paths.visible_path``), when this run
    wrote one (never an earlier run's)."""
    path = harness.output_dir / TRANSCRIPT_FILE
    return visible_path(path, runner, plan.workspace) if str(path) in result.files and path.is_file() else ""
