"""The record of a run that could not start (exit 2): a JSONL ``error`` event and, when
``GITHUB_STEP_SUMMARY`` is set, a failure summary that says what to change (spec §11.2.1,
``run/explain.py``).

Contract: never raises; a summary that cannot be written becomes a JSONL ``warning``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.exits import SdkLoadError
from aw_action.run.record import Reporting
from aw_action.run.redact import Redactor
from aw_action.run.result import RunResult
from aw_action.sinks.jsonl import JsonlSink
from aw_action.sinks.summary import append_step_summary, render_failure_summary


def report_invocation_error(
    result: RunResult, reporting: Reporting, runner_facts: RunnerFacts, jsonl: JsonlSink, redactor: Redactor
) -> None:
    fields: dict[str, Any] = {"message": result.error, "stop_reason": result.stop_reason}
    if isinstance(result.cause, SdkLoadError):
        fields.update(module=result.cause.module, detail=result.cause.detail)
    if result.setting is not None:
        fields["setting"] = result.setting.name
    jsonl.record("error", fields)
    summary = runner_facts.step_summary
    if not summary:
        return
    text = render_failure_summary(result, reporting)
    try:
        append_step_summary(Path(summary), lambda _rows: text, redactor)
    except OSError as exc_io:
        jsonl.event("warning", message=f"step summary not written: {exc_io}", sink="step-summary")
