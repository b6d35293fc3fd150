"""gh-aw mode's records from real CLI runs: agent-session.jsonl in the output dir, canonical line by
line (gh-aw's rules, sinks/agent_session.validate_file, and the unified-session schema once gh-aw
adds its provenance), no token-usage.jsonl or aw_session.jsonl, the phase recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema

from aw_action.sinks.agent_session import FILE_NAME, validate_file
from aw_action.sinks.agent_session_events import MAX_MESSAGE_CHARS, MAX_TOOL_CHARS
from tests.conftest import base_env, write_run_files
from tests.sinks.support import TOOL_SCRIPT, event_validator, jsonl, scripted_run, split_stderr

SCHEMA = Path(__file__).parents[1] / "audit" / "data" / "gh-aw" / "unified-session.schema.json"
GH_AW = {"GITHUB_AW": "true"}


def unified_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(SCHEMA.read_text())
    return jsonschema.Draft7Validator({**schema["items"], "definitions": schema["definitions"]})


def canonical(path: Path) -> list[dict[str, Any]]:
    """Every line canonical by gh-aw's rules and valid once projected into aw_session.jsonl."""
    assert validate_file(path) == []
    records = jsonl(path)
    validator = unified_validator()
    for index, record in enumerate(records):
        provenance = {"component": "agent", "phase": "agent", "path": FILE_NAME, "index": index}
        projected = {**record, "provenance": provenance}
        assert [e.message for e in validator.iter_errors(projected)] == [], record
    return records


def test_a_gh_aw_mode_run_writes_agent_session_jsonl_and_not_awfs_files(tmp_path: Path) -> None:
    script = [{**TOOL_SCRIPT[0], "thinking": "Look before leaping."}, *TOOL_SCRIPT[1:]]
    run = scripted_run(tmp_path, script, prompt="Triage issue #4.", GITHUB_AW="true", GH_AW_PHASE="agent")
    assert run.returncode == 0, run.stderr[-3000:]
    out = run.output_dir
    assert not (out / "token-usage.jsonl").exists() and not (out / "aw_session.jsonl").exists()
    assert (out / "session.jsonl").exists() and (out / "context-provenance.jsonl").exists()
    assert str(out / FILE_NAME) in run.result["files"]
    # the events of the session; a harness warning (tools not isolated, when this runs as root)
    # may come anywhere and is checked by its own tests; the run's sandbox record comes first
    everything = canonical(out / FILE_NAME)
    assert [r["type"] for r in everything].count("harness.sandbox") == 1
    records = [r for r in everything if r["type"] not in ("harness.warning", "harness.sandbox")]
    types = [r["type"] for r in records]
    assert types[0] == "session.start" and types[-2:] == ["session.result", "harness.run"]
    assert types[1:3] == ["assistant.turn_start", "user.message"], "the prompt opens turn 1, as in the agent loop"
    assert records[2]["data"]["content"] == "Triage issue #4."
    assert types.count("assistant.turn_start") == types.count("assistant.turn_end") == 3
    assert types.count("tool.execution_start") == types.count("tool.execution_complete") == 2
    assert types.count("assistant.message") == 3 and types.count("assistant.reasoning") == 1
    start = records[0]["data"]
    assert start == {"sourceEngine": "aw-harness", "model": "faux/scripted", "sessionId": start["sessionId"],
                     "cwd": str(tmp_path / "ws")}  # fmt: skip
    calls = [r["data"] for r in records if r["type"] == "tool.execution_start"]
    assert calls[0]["input"] == {"command": "echo one"} and calls[0]["turnId"] == "1"
    done = [r["data"] for r in records if r["type"] == "tool.execution_complete"]
    assert done[0]["success"] is True and done[0]["output"].startswith("one")
    assert done[1]["success"] is False and done[1]["isError"] is True and "exited with code 3" in done[1]["error"]
    result = records[-2]["data"]
    assert result["status"] == "success" and result["numTurns"] == 3
    assert result["usage"]["inputTokensIncludeCache"] is False
    assert result["usage"]["totalTokens"] == run.result["tokens"]["total"]
    harness_run = records[-1]["data"]
    assert harness_run["stopReason"] == "completed" and harness_run["phase"] == "agent"


def test_the_phase_labels_a_detection_run_everywhere(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, [{"text": "No threat."}], GITHUB_AW="true", GH_AW_PHASE="detection")
    assert run.returncode == 0, run.stderr[-3000:]
    [start] = run.events_named("session_start")
    assert start["phase"] == "detection"
    assert jsonl(run.output_dir / FILE_NAME)[-1]["data"]["phase"] == "detection"
    assert "gh-aw phase `detection`" in (tmp_path / "summary.md").read_text()
    events, _, _ = split_stderr(run.stderr)
    for event in events:
        assert not list(event_validator().iter_errors(event)), event


def test_standalone_runs_keep_their_files_and_write_no_agent_session(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, [{"text": "Done."}], GH_AW_PHASE="detection")
    assert run.returncode == 0, run.stderr[-3000:]
    assert (run.output_dir / "token-usage.jsonl").exists() and (run.output_dir / "aw_session.jsonl").exists()
    assert not (run.output_dir / FILE_NAME).exists()
    assert "phase" not in run.events_named("session_start")[0], "GH_AW_PHASE means nothing outside gh-aw mode"


def test_budget_refusal_and_harness_records_reach_the_file(tmp_path: Path) -> None:
    refusal = "Error code: 403 - ai_credits_limit_exceeded: Maximum AI credits exceeded (3.5 / 3)."
    script = [TOOL_SCRIPT[0], {"error": {"message": refusal, "kind": "budget"}}]
    run = scripted_run(tmp_path, script, GITHUB_AW="true")
    assert run.returncode == 1 and run.result["stop_reason"] == "budget_exceeded", run.stderr[-3000:]
    records = canonical(run.output_dir / FILE_NAME)
    [stop] = [r["data"] for r in records if r["type"] == "harness.budget_exceeded"]
    assert (stop["budget"], stop["reason"], stop["used"], stop["limit"]) == ("ai_credits", "external_limit", 3.5, 3)
    result = next(r["data"] for r in records if r["type"] == "session.result")
    assert result["status"] == "error" and result["errors"]
    assert records[-1]["data"]["budgetExceeded"]["trigger"] == "api_proxy"


def test_text_is_capped_and_secrets_are_masked(tmp_path: Path) -> None:
    secret = "sk-ant-api03-PLANTED-secret-value-0042"
    command = "true " + "#" * (MAX_TOOL_CHARS + 495)
    call = {"name": "bash", "arguments": {"command": command}}
    long = [{"text": "y" * (MAX_MESSAGE_CHARS + 10), "tool_calls": [call]}, {"text": f"The key was {secret}."}]
    run = scripted_run(tmp_path, long, prompt=f"Use {secret} carefully.", GITHUB_AW="true", ANTHROPIC_API_KEY=secret)
    assert run.returncode == 0, run.stderr[-3000:]
    text = (run.output_dir / FILE_NAME).read_text()
    assert secret not in text and text.count("***") >= 2
    records = canonical(run.output_dir / FILE_NAME)
    [call] = [r["data"] for r in records if r["type"] == "tool.execution_start"]
    assert call["input"]["command"].endswith("… [500 more characters in session.jsonl]")
    first = next(r["data"] for r in records if r["type"] == "assistant.message")
    assert first["content"] == "y" * MAX_MESSAGE_CHARS + "… [10 more characters in session.jsonl]"
    transcript = (run.output_dir / "session.jsonl").read_text()
    assert command in transcript, "the transcript keeps the whole text"


def test_a_killed_run_leaves_only_whole_canonical_lines(tmp_path: Path) -> None:
    turn = {"text": "Working.", "tool_calls": [{"name": "bash", "arguments": {"command": "echo step"}}]}
    script = [turn] * 3 + [{**turn, "delay_s": 120}]
    config_path, prompt_path = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=script)
    env = base_env(tmp_path, **GH_AW)
    args = [sys.executable, "-m", "aw_action", "--config", str(config_path), "--prompt", str(prompt_path)]
    proc = subprocess.Popen(args, env=env, cwd=tmp_path / "ws", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    path = tmp_path / "out" / FILE_NAME

    def turns_started() -> int:
        return path.read_bytes().count(b'"assistant.turn_start"') if path.exists() else 0

    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and turns_started() < 4:  # the fourth request waits for 120 s
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    records = canonical(path)
    types = [r["type"] for r in records]
    assert types.count("tool.execution_complete") == 3, "what the run finished before it was killed is kept"
    assert "session.result" not in types


def test_an_unwritable_agent_session_is_a_degraded_warning_not_a_failed_run(tmp_path: Path) -> None:
    (tmp_path / "out" / FILE_NAME).mkdir(parents=True)  # a directory where the file should go
    run = scripted_run(tmp_path, TOOL_SCRIPT, GITHUB_AW="true")
    assert run.returncode == 0 and run.result["conclusion"] == "success", run.stderr[-3000:]
    warnings = [e for e in run.events_named("warning") if e.get("sink") == "agent-session"]
    assert len(warnings) == 1 and "agent-session sink failed and was switched off" in warnings[0]["message"]
    assert run.events_named("session_end")[0]["degraded"] == ["agent-session"]
    assert "Degraded mode" in (tmp_path / "summary.md").read_text()
