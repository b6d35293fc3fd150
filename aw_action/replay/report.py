"""What ``aw-harness replay`` (and the action's ``mode: replay``) reports: one object on stdout,
and for people a few lines on stderr (the verdict, and the diff when the replay diverged).

The object (key order is the contract): ``replay`` (``same``, ``paused``, ``diverged``, ``live``,
``stopped``, or ``unusable`` when the records or the replay's own inputs are refused),
``exit_code`` (0, 1 or 2), ``message``, ``divergence`` (``turn``, ``reason``, ``tool_call_id``,
``tool``, ``arguments``, ``diff``, ``call``: its place among its turn's calls; null unless
diverged), ``recording`` (where it was read from, the recorded session, GitHub run, commit,
model, turns and stop reason; null when it could not be read), ``output_dir`` (the replay's own
records) and ``run`` (the replay run's result object, ``cli.py``'s; null when no run started).
Everything passes through the run's redactor.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from aw_action.ai.inert_line import one_line
from aw_action.replay.recording import Recording
from aw_action.replay.verdict import Verdict
from aw_action.run.result import RunResult
from aw_action.sinks import markdown as md

REFUSED_FIX = (
    "**Fix:** give `replay-records` the recorded run's artifact as `actions/download-artifact` wrote it "
    "(its folder or zip, with its `records.sha256`), outside the workspace: under `${{ runner.temp }}`. "
    "The replay docs (docs/replay.md) say what a replay refuses and why."
)


def recording_summary(recording: Recording) -> dict[str, Any]:
    header = recording.header
    model = header.model
    return {
        "records": recording.records,
        "session_id": header.session_id,
        "run": header.run.model_dump(mode="json", exclude_none=True),
        "commit": header.workspace.commit,
        "model": f"{model.provider}/{model.id}",
        "turns": recording.turns,
        "stop_reason": recording.end.stop_reason,
        "harness": header.harness,
    }


def report_object(
    verdict: Verdict | None,
    recording: Recording | None,
    result: RunResult | None,
    output_dir: Path | None,
    error: str | None = None,
) -> dict[str, Any]:
    kind: str
    if verdict is not None:
        kind, code, message = verdict.kind, verdict.exit_code, verdict.message
    else:
        code = result.exit_code if result is not None else 2
        kind = "unusable" if code == 2 else "stopped"
        message = error or (result.error if result is not None else None) or "the replay did not run"
    divergence = verdict.divergence if verdict is not None else None
    return {
        "replay": kind,
        "exit_code": code,
        "message": message,
        "divergence": dataclasses.asdict(divergence) if divergence is not None else None,
        "recording": recording_summary(recording) if recording is not None else None,
        "output_dir": str(output_dir) if output_dir is not None else None,
        "run": result.to_json() if result is not None else None,
    }


def people_lines(report: dict[str, Any]) -> list[str]:
    """The report for a person reading stderr, printable whatever the recording held: each line
    inert (``ai/inert_line.one_line``), a recorded message with a line break included."""
    return [one_line(line) for line in _lines(report)]


def _lines(report: dict[str, Any]) -> list[str]:
    lines = [f"aw-harness replay: {report['replay']}: {report['message']}"]
    divergence = report.get("divergence")
    if divergence and divergence.get("tool_call_id"):
        lines.append(f"  call {divergence['tool_call_id']} ({divergence['tool']}): {divergence['arguments']}")
    if divergence and divergence.get("diff"):
        lines += ["  " + line for line in str(divergence["diff"]).splitlines()]
    if report.get("output_dir") and report.get("run"):
        lines.append(f"aw-harness replay: the replay's records are in {report['output_dir']}")
    return lines


def refused_summary(records: str, message: str) -> str:
    """The step summary of a replay refused before any command ran (its records or its inputs):
    why, in the refusal's own words (inert: they may quote the recording), and what to do."""
    return (
        "\n\n".join(
            [
                "## ❌ Failure · Replay refused",
                f"`replay-records`: {md.code(records)} · exit 2 · no recorded command was replayed",
                md.alert("caution", [md.code(message), REFUSED_FIX]),
            ]
        )
        + "\n"
    )
