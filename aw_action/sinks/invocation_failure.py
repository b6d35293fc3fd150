"""The record of a run that could not start (exit 2): a JSONL ``error`` event and, when
``GITHUB_STEP_SUMMARY`` is set, a failure summary with a remediation hint (spec §11.2.1).

Contract: never raises; a summary that cannot be written becomes a JSONL ``warning``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.exits import BuiltinExtensionError, InvocationError, SdkLoadError
from aw_action.run.redact import Redactor
from aw_action.sinks.jsonl import JsonlSink
from aw_action.sinks.summary import append_step_summary, render_failure_summary


def remediation(exc: InvocationError) -> str:
    if isinstance(exc, SdkLoadError):
        return (
            f"the provider SDK module `{exc.module}` could not be imported: rebuild the action image "
            "(`docker build --no-cache .`) or reinstall the package (`pip install --force-reinstall aw-harness`), "
            "then re-run"
        )
    if isinstance(exc, BuiltinExtensionError):
        return "a built-in extension is broken: reinstall the package or rebuild the action image"
    return "check config.json and prompt.txt, the model name and the provider credentials, then re-run"


def report_invocation_error(
    exc: InvocationError, model: str, env: Mapping[str, str], jsonl: JsonlSink, redactor: Redactor
) -> None:
    fields: dict[str, Any] = {"message": str(exc), "stop_reason": exc.stop_reason}
    if isinstance(exc, SdkLoadError):
        fields.update(module=exc.module, detail=exc.detail)
    jsonl.record("error", fields)
    summary = env.get("GITHUB_STEP_SUMMARY")
    if not summary:
        return
    hint = remediation(exc)
    text = render_failure_summary(model, str(exc), hint[0].upper() + hint[1:] + ".")
    try:
        append_step_summary(Path(summary), lambda _rows: text, redactor)
    except OSError as exc_io:
        jsonl.event("warning", message=f"step summary not written: {exc_io}", sink="step-summary")
