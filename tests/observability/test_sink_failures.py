"""A failing sink degrades the run's record, never the run: warning, degraded notice, same exit code."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import base_env, run_cli, write_run_files
from tests.observability.support import TOOL_SCRIPT, event_validator, gfm, split_stderr


def test_unwritable_record_files_warn_and_mark_the_summary_degraded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for name in ("token-usage.jsonl", "aw_session.jsonl"):
        (out / name).mkdir(parents=True)  # a directory where the file should go: open() fails
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=TOOL_SCRIPT)
    env = base_env(tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    run = run_cli(["--config", str(config), "--prompt", str(prompt)], env)
    assert run.returncode == 0, run.stderr
    assert run.result["conclusion"] == "success" and run.result["turns"] == 3
    events, _, _ = split_stderr(run.stderr)
    validator = event_validator()
    assert all(validator.is_valid(e) for e in events)
    warned = {e.get("sink") for e in events if e["event"] == "warning"}
    assert {"token-usage", "unified-session"} <= warned
    assert len([e for e in events if e["event"] == "warning" and e.get("sink") == "token-usage"]) == 1
    end = events[-1]
    assert end["event"] == "session_end" and {"token-usage", "unified-session"} <= set(end["degraded"])
    html = gfm((tmp_path / "summary.md").read_text())
    notice = html.split("<blockquote>", 1)[1].split("</blockquote>", 1)[0]
    assert "Degraded mode" in notice and "token-usage" in notice and "unified-session" in notice
    assert "AW_OUTPUT_DIR" in notice  # the remediation hint
    assert (out / "context-provenance.jsonl").is_file()  # the other sinks kept working


def test_unwritable_step_summary_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    summary_dir = tmp_path / "summary-is-a-dir"
    summary_dir.mkdir()
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=TOOL_SCRIPT)
    run = run_cli(
        ["--config", str(config), "--prompt", str(prompt)], base_env(tmp_path, GITHUB_STEP_SUMMARY=str(summary_dir))
    )
    assert run.returncode == 0, run.stderr
    warnings = [e for e in run.events_named("warning") if e.get("sink") == "step-summary"]
    assert len(warnings) == 1
    assert run.events_named("session_end")[0]["degraded"] == ["step-summary"]


def test_a_failed_session_keeps_its_exit_code_when_a_sink_also_fails(tmp_path: Path) -> None:
    (tmp_path / "out" / "token-usage.jsonl").mkdir(parents=True)
    script = [{"error": {"message": "model exploded", "kind": "fatal"}}]
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=script)
    run = run_cli(
        ["--config", str(config), "--prompt", str(prompt)],
        base_env(tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md")),
    )
    assert run.returncode == 1
    errors = run.events_named("error")
    assert errors and "model exploded" in errors[0]["message"]
    assert "Degraded mode" in (tmp_path / "summary.md").read_text()
