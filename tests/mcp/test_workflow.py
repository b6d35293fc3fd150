"""Workflow steps and MCP tools (seed 004 ``permissions.mcp``): two steps see different tools of
real servers, a call a step was not granted is refused naming the step, and a selector naming no
configured server is exit 2 before anything starts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from aw_action.workflows.authorize import authorize_tool_call, mcp_granted
from aw_action.workflows.models import Step
from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.workflows.support import write_workflow

SERVER = Path(__file__).with_name("server.py")
COMPLETE = "workflow_complete_step"
WORKFLOW = """\
version: 1
id: two-views
command: two-views
description: one step reads the docs server, the other only echoes on the tools server
start: research
steps:
  research:
    prompt: Research.
    permissions: {tools: [read], mcp: [docs]}
    transitions: {found: write}
  write:
    prompt: Write.
    permissions: {tools: [read], mcp: [tools/echo]}
    transitions: {done: $done}
"""
SERVERS = {
    "docs": {"command": sys.executable, "args": [str(SERVER), "ok"]},
    "tools": {"command": sys.executable, "args": [str(SERVER), "ok"]},
}


def _call(tool: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": arguments}]}


def _run(tmp_path: Path, text: str, turns: list[dict[str, Any]], servers: dict[str, Any]) -> CliRun:
    workflow = write_workflow(tmp_path / "wf", text, name="two.workflow.yml")
    cfg, _ = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}, "mcp-servers": servers}, script=turns)
    (tmp_path / "summary.md").write_text("")
    env = base_env(tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    return run_cli(["workflow", "run", str(workflow), "--input", "x", "--config", str(cfg)], env, timeout=120)


def _results(run: CliRun) -> list[tuple[str, bool, str]]:
    import json

    entries = [json.loads(line) for line in (run.output_dir / "session.jsonl").read_text().splitlines()]
    messages = [e["message"] for e in entries if e.get("type") == "message"]
    return [
        (m["tool_name"], m["is_error"], "".join(b.get("text", "") for b in m["content"]))
        for m in messages
        if m["role"] == "toolResult"
    ]


def test_two_steps_see_different_mcp_tools_and_a_denied_call_names_the_step(tmp_path: Path) -> None:
    turns = [
        _call("mcp__docs__echo", text="docs in research"),
        _call("mcp__tools__echo", text="tools in research"),
        _call(COMPLETE, outcome="found", summary="found"),
        _call("mcp__tools__echo", text="tools in write"),
        _call("mcp__tools__env", name="HOME"),
        _call("mcp__docs__echo", text="docs in write"),
        _call("bash", command="echo hi"),
        _call(COMPLETE, outcome="done", summary="written"),
    ]
    run = _run(tmp_path, WORKFLOW, turns, SERVERS)
    assert run.returncode == 0, run.stderr[-3000:]
    results = [r for r in _results(run) if r[0] != COMPLETE]
    assert [(name, error) for name, error, _ in results] == [
        ("mcp__docs__echo", False),
        ("mcp__tools__echo", True),
        ("mcp__tools__echo", False),
        ("mcp__tools__env", True),
        ("mcp__docs__echo", True),
        ("bash", True),
    ]
    assert "docs in research" in results[0][2] and "tools in write" in results[2][2]
    assert "is not granted in step 'research' (permissions.mcp: docs)" in results[1][2]
    assert "is not granted in step 'write' (permissions.mcp: tools/echo)" in results[3][2]
    assert "tool 'bash' is not allowed in step 'write' (allowed: read, workflow_complete_step)" in results[5][2]
    summary = (tmp_path / "summary.md").read_text()
    assert "a workflow step's own sandbox does not apply to them" in summary, summary[-3000:]
    assert "only the MCP tools its permissions.mcp grants" in summary


def test_a_selector_naming_no_configured_server_is_exit_2(tmp_path: Path) -> None:
    run = _run(tmp_path, WORKFLOW, [{"text": "never"}], {"docs": SERVERS["docs"]})
    assert run.returncode == 2, run.stderr[-2000:]
    assert "step 'write': permissions.mcp 'tools/echo' names no configured MCP server" in run.stderr


def test_selectors_grant_a_server_or_one_tool() -> None:
    step = Step.model_validate(
        {
            "prompt": "p",
            "permissions": {"tools": ["read"], "mcp": ["docs", "jira/search"]},
            "transitions": {"d": "$done"},
        }
    )
    assert mcp_granted(step, "mcp__docs__anything") and mcp_granted(step, "mcp__jira__search")
    assert not mcp_granted(step, "mcp__jira__delete") and not mcp_granted(step, "read")
    assert not authorize_tool_call("s", step, "mcp__other__x", {}).allowed
