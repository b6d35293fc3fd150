"""The action's ``mode: report``, through the entrypoint as the runner starts it: the legs of a
matrix run by the action (each its own artifact folder), then one report job over the downloads
folder: the report in the step summary with each run's link, ``report.json`` in the output
folder, the outputs; an artifact it cannot read is a warning and exit 1; a missing
``report-path`` names the input (exit 2)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.action.launch import ActionRun, run_action, write_script

LEGS = {
    "success": (
        [{"text": "Listing.", "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}, {"text": "Done."}],
        {},
    ),
    "max-turns": (
        [{"text": f"Step {i}.", "tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]} for i in range(4)],
        {"max-turns": "2"},
    ),
}


@pytest.fixture(scope="module")
def downloads(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What ``actions/download-artifact`` leaves after the matrix: one folder per leg's artifact."""
    folder = tmp_path_factory.mktemp("downloads")
    for name, (script, inputs) in LEGS.items():
        tmp = tmp_path_factory.mktemp(f"leg-{name}")
        (tmp / "workspace").mkdir()
        write_script(tmp / "workspace", script)
        (tmp / "workspace" / "config.json").write_text(
            json.dumps({"engine": {"model": "faux/scripted"}, "harness": {"faux-script": "script.json"}})
        )
        (tmp / "workspace" / "prompt.txt").write_text("Do it.\n")
        leg_inputs = {"config": "config.json", "prompt-file": "prompt.txt", "upload-artifacts": "false"}
        out = folder / f"aw-harness-{name}"
        run = run_action(tmp, {**leg_inputs, **inputs, "output-dir": str(out)})
        assert run.returncode == (0 if name == "success" else 1), run.stdout[-3000:]
    return folder


def report(tmp: Path, inputs: dict[str, str]) -> ActionRun:
    return run_action(tmp, {"mode": "report", **inputs})


def test_a_report_job_sums_up_the_matrix(tmp_path: Path, downloads: Path) -> None:
    out = tmp_path / "report-out"
    run = report(tmp_path, {"report-path": str(downloads), "output-dir": str(out)})
    assert run.returncode == 0, run.stdout[-3000:]
    assert run.outputs["conclusion"] == "success" and run.outputs["exit-code"] == "0"
    assert run.summary.startswith("## AW Harness report\n")
    assert "**2 runs**: 1 succeeded, 1 failed or stopped" in run.summary
    assert "[run](https://github.com/octo/hello/actions/runs/123456)" in run.summary
    assert "```mermaid\npie showData" in run.summary
    saved = json.loads((out / "report.json").read_text())
    assert [r["stop_reason"] for r in saved["runs"]] == ["max_turns", "completed"]
    assert "Raise the max-turns input (now 2)" in run.summary, "the explanation speaks to the action's user"
    assert not run.warnings


def test_an_artifact_it_cannot_read_is_a_warning_and_exit_1(tmp_path: Path, downloads: Path) -> None:
    mixed = tmp_path / "mixed"
    shutil.copytree(downloads, mixed)
    (mixed / "aw-harness-success" / "replay.jsonl").write_text("{}\n")
    run = report(tmp_path, {"report-path": str(mixed), "output-dir": str(tmp_path / "o")})
    assert run.returncode == 1
    assert run.outputs["conclusion"] == "failure" and run.outputs["exit-code"] == "1"
    [warning] = run.warnings
    assert warning.data.startswith("inconsistent: ") and "replay.jsonl: changed or cut short" in warning.data
    assert "### Not read" in run.summary and "`aw-harness-success`" in run.summary


def test_a_missing_report_path_names_the_input(tmp_path: Path) -> None:
    run = report(tmp_path, {})
    assert run.returncode == 2
    errors = run.runner.named("error")
    assert any("report-path" in e.properties.get("title", "") + e.data for e in errors), run.stdout[-2000:]
    run = report(tmp_path, {"report-path": "nowhere"})
    assert run.returncode == 2
    assert any("nowhere: no such file or directory" in e.data for e in run.runner.named("error"))
