"""The agent job needs no write-capable token: the action's entrypoint, with no token at all and
the GitHub API pointed at a server that records every request, proposes an issue (tool), a
comment (bash) and a pull request with its patch, and answers in the configured output schema;
GitHub is never called, and the agent's shell holds no token."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from aw_action.safe_outputs.records import RECORDS_FILE
from tests.action.launch import run_action, write_script
from tests.safe_outputs.fake_github import FakeGitHub

SCHEMA = {"type": "object", "properties": {"proposed": {"type": "integer"}}, "required": ["proposed"]}
GIT = "git -c user.name=d -c user.email=d@x"


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command, "timeout": 60}}


TURNS: list[dict[str, Any]] = [
    {"tool_calls": [bash('echo "token=${GITHUB_TOKEN:-none} gh=${GH_TOKEN:-none}"')]},
    {"tool_calls": [{"name": "create_issue", "arguments": {"title": "Flaky test", "body": "It fails sometimes."}}]},
    {"tool_calls": [bash("aw-harness safe-output add-comment --item-number 3 --body 'Seen it too.'")]},
    {"tool_calls": [bash(f"git init -q -b main && {GIT} commit -q --allow-empty -m init && echo fix > FIX.md")]},
    {"tool_calls": [{"name": "create_pull_request", "arguments": {"title": "Add FIX.md", "body": "The fix."}}]},
    {"text": '{"proposed": 3}'},
]


def test_the_agent_job_runs_and_proposes_without_any_token(tmp_path: Path) -> None:
    ws = tmp_path / "workspace"
    ws.mkdir()
    script = write_script(ws, TURNS)
    config = {
        "engine": {"id": "aw", "model": "faux/scripted"},
        "safe-outputs": {"create-issue": None, "add-comment": {"target": "*"}, "create-pull-request": None},
        "harness": {"faux-script": script.name},
    }
    (ws / "config.json").write_text(json.dumps(config))
    inputs = {
        "config": "config.json",
        "prompt": "Triage.",
        "github-token": "",
        "upload-artifacts": "false",
        "output-schema": json.dumps(SCHEMA),
    }
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    fake = FakeGitHub()
    try:
        extra = {"GITHUB_API_URL": fake.url, "PATH": path, "GITHUB_REPOSITORY": "octo/hello"}
        run = run_action(tmp_path, inputs, extra, timeout=120)
        requests = list(fake.requests)
    finally:
        fake.close()
    assert run.returncode == 0, run.stdout[-4000:]
    assert requests == [], "recording must never call GitHub"
    out = tmp_path / "runner_temp" / "aw-harness"
    records = [json.loads(line) for line in (out / RECORDS_FILE).read_text().splitlines()]
    assert [r["type"] for r in records] == ["create_issue", "add_comment", "create_pull_request"]
    assert "FIX.md" in (out / records[2]["patch_path"]).read_text()
    transcript = (out / "session.jsonl").read_text()
    assert "token=none gh=none" in transcript
    assert json.loads(run.outputs["structured-output"]) == {"proposed": 3}
    assert (out / "structured-output.json").is_file()
    assert "### Safe Outputs Proposed" in run.summary and "### Structured Output" in run.summary


def test_a_bad_output_schema_input_is_named(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"model": "faux/scripted", "prompt": "hi", "output-schema": '{"type": 5}'})
    assert run.returncode == 2
    [error] = run.runner.named("error")
    assert error.properties.get("title") == "aw-harness: Invalid input 'output-schema'"
    assert "not a valid JSON Schema at /type" in error.data
