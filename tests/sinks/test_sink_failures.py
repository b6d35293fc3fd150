"""A failing sink degrades the run's record, never the run: warning, degraded notice, same exit code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import base_env, run_cli, write_run_files
from tests.sinks.support import TOOL_SCRIPT, event_validator, gfm, jsonl, split_stderr


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
    [notice] = [q for q in html.split("<blockquote>")[1:] if "Degraded mode" in q]
    notice = notice.split("</blockquote>", 1)[0]
    assert "token-usage" in notice and "unified-session" in notice
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
    records = jsonl(run.output_dir / "aw_session.jsonl")  # finished before the summary: left whole
    assert records[0]["type"] == "session.format" and records[-1]["type"] == "session.collection"
    assert any(r["type"] == "assistant.turn_end" for r in records)


WRITE_UNTIL_FULL = """
import json, resource, signal, sys
from pathlib import Path
from aw_action.sinks.files import JsonlFile
from aw_action.run.redact import Redactor

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-limit write then fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
sink = JsonlFile(Path(sys.argv[1]), Redactor())
written = 0
try:
    while True:
        sink.write({"n": written, "pad": "x" * 3000})
        written += 1
except OSError as exc:
    print(json.dumps({"written": written, "error": type(exc).__name__}))
"""


def test_a_record_file_that_fills_up_keeps_only_whole_lines(tmp_path: Path) -> None:
    """A line that only partly fits (disk full, file size limit) is cut back: the file stays JSONL."""
    path = tmp_path / "token-usage.jsonl"
    proc = subprocess.run(
        [sys.executable, "-c", WRITE_UNTIL_FULL, str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout)
    assert outcome["error"] == "OSError" and outcome["written"] == 6
    data = path.read_bytes()
    assert data.endswith(b"\n")
    assert [json.loads(line)["n"] for line in data.decode().splitlines()] == list(range(6))


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
