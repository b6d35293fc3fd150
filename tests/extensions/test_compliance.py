"""Spec compliance tests T-AW-002, T-AW-003 and T-AW-007, and the soft deadline, as real runs
of the CLI in a subprocess (scripted provider)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import CliRun, base_env, run_cli, write_run_files

GREETER = """
from aw_action.agent.tools import ToolResult

def setup(api):
    async def greet(call_id, args, signal, on_update, ctx):
        return ToolResult.text("hello from the extension")

    api.register_tool(name="greet", description="greets", parameters={"type": "object"}, execute=greet)
    api.on("agent_end", lambda event, ctx: ctx.emit("greeter_saw_agent_end"))
"""

CRASHER = """
def setup(api):
    api.on("turn_end", lambda event, ctx: None)
    raise RuntimeError("extension init exploded")
"""


def run(tmp_path: Path, config: dict[str, Any], script: list[dict[str, Any]], **env: str) -> CliRun:
    config.setdefault("engine", {"model": "faux/scripted"})
    c, p = write_run_files(tmp_path, config, script=script)
    summary = tmp_path / "summary.md"
    return run_cli(
        ["--config", str(c), "--prompt", str(p)], base_env(tmp_path, GITHUB_STEP_SUMMARY=str(summary), **env)
    )


def tool_results(run: CliRun) -> list[str]:
    entries = [json.loads(line) for line in (run.output_dir / "session.jsonl").read_text().splitlines()]
    messages = [e["message"] for e in entries if e["type"] == "message"]
    return [m["content"][0]["text"] for m in messages if m["role"] == "toolResult"]


def test_t_aw_002_valid_extension_loads_missing_one_is_skipped_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "greeter.py").write_text(GREETER)
    script = [{"tool_calls": [{"name": "greet", "arguments": {}}]}, {"text": "done"}]
    result = run(tmp_path, {"harness": {"extensions": ["./greeter.py", "./not-there.py"]}}, script)
    assert result.returncode == 0, result.stderr
    warnings = [e["message"] for e in result.events_named("warning")]
    missing = [w for w in warnings if "./not-there.py" in w]
    assert missing and "file not found" in missing[0] and str(tmp_path / "ws" / "not-there.py") in missing[0]
    assert tool_results(result) == ["hello from the extension"]
    assert len(result.events_named("greeter_saw_agent_end")) == 1
    assert result.result["stop_reason"] == "completed"
    summary = (tmp_path / "summary.md").read_text()
    assert "Degraded" in summary and "not-there.py" in summary


def test_t_aw_003_budget_gate_aborts_with_budget_exceeded(tmp_path: Path) -> None:
    """A 1000-token budget cannot pay for even the first request at its worst case (the prompt,
    tools included, plus a minimal answer at 4 a token): the gate refuses it, nothing is spent."""
    script = [
        {
            "tool_calls": [{"name": "write", "arguments": {"path": "must-not-exist.txt", "content": "x"}}],
            "usage": {"input": 5000, "output": 20},
        },
        {"text": "never requested"},
    ]
    result = run(tmp_path, {"harness": {"budget": {"max-effective-tokens": 1000}}}, script)
    assert result.returncode == 1, result.stderr
    [event] = result.events_named("budget_exceeded")
    assert event["reason"] == "hard_limit" and event["forced_termination"] is True
    assert event["budget"] == "effective_tokens" and event["used"] == 0 and event["limit"] == 1000
    assert event["trigger"] == "next_request" and event["next_request"] > 1000
    assert result.result["stop_reason"] == "budget_exceeded" and result.result["exit_code"] == 1
    assert not (tmp_path / "ws" / "must-not-exist.txt").exists()
    assert result.events_named("request_end") == []  # no request was sent
    assert result.events_named("session_end")
    summary = (tmp_path / "summary.md").read_text()
    assert "## ❌ Failure · Stopped by the effective-token limit" in summary
    assert "of 1,000 effective tokens used" in summary


def test_t_aw_007_crashing_extension_is_isolated(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "crasher.py").write_text(CRASHER)
    (tmp_path / "ws" / "greeter.py").write_text(GREETER)
    script = [{"tool_calls": [{"name": "greet", "arguments": {}}]}, {"text": "done"}]
    result = run(tmp_path, {"harness": {"extensions": ["./crasher.py", "./greeter.py"]}}, script)
    assert result.returncode == 0, result.stderr
    warnings = [e["message"] for e in result.events_named("warning")]
    assert any("./crasher.py" in w and "RuntimeError: extension init exploded" in w for w in warnings)
    assert tool_results(result) == ["hello from the extension"]  # the remaining extension loaded
    assert result.events_named("session_end")


def test_t_aw_007_required_extension_failure_exits_2_before_any_session(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "crasher.py").write_text(CRASHER)
    config = {"harness": {"extensions": ["./crasher.py"], "extensions-required": True}}
    result = run(tmp_path, config, [{"text": "never"}])
    assert result.returncode == 2
    assert "./crasher.py" in result.stderr and "extension init exploded" in result.stderr
    assert result.events_named("session_start") == [] and result.events_named("request_end") == []


def test_soft_deadline_ends_the_run_with_timeout_and_writes_the_record(tmp_path: Path) -> None:
    script = [{"text": "thinking for a long time", "delay_s": 60}, {"text": "never"}]
    result = run(tmp_path, {"timeout-minutes": 0.05}, script)  # 3 s; the harness stops at 2.7 s
    assert result.returncode == 1, result.stderr
    assert result.result["stop_reason"] == "timeout"
    [event] = result.events_named("timeout")
    assert event["soft_deadline_s"] == 2.7 and event["margin_s"] == 0.3
    assert result.events_named("session_end")
    assert "timeout" in (tmp_path / "summary.md").read_text()
