"""The issue-triage example's ``tools.bash: ["gh", "jq"]`` holds: its own commands run, and a
scripted agent that tries ``python3``, ``env`` or any other way to print GITHUB_TOKEN is refused
(issue 14: before the policy was wired, a scripted agent there ran python3 and printed part of
the token). Runs the example's config through the action entrypoint, with the scripted model and
a stub ``gh`` on PATH that records its argv."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

from tests.action.launch import FAKE_GITHUB_TOKEN, REPO, ActionRun, run_action

ALLOWED = 'gh issue view "$ISSUE_NUMBER" --json title,body,labels,author'
REFUSED = {
    "python3 -c 'import os; print(os.environ[\"GITHUB_TOKEN\"][:12])'": "'python3' is not an allowed executable",
    "env": "'env' runs other commands",
    "printenv GITHUB_TOKEN": "prints the environment",
    "gh auth token": "gh auth can print or change credentials",
    "jq -n env.GITHUB_TOKEN": "jq program uses env, which reads the environment",
    "jq -n '$ENV.GITHUB_TOKEN'": "jq program uses $ENV, which reads the environment",
    'gh issue comment 1 --body "$GITHUB_TOKEN"': "parameter expansion $GITHUB_TOKEN inside double quotes",
    "gh issue view $ISSUE_NUMBER": "parameter expansion is not allowed",
    "gh issue view 1; python3": "only one simple command is allowed",
    "gh issue view 1 | python3": "pipe is not allowed",
    "gh issue view $(python3 -c 1)": "command substitution is not allowed",
    "/usr/bin/python3 -V": "path-qualified executables are not allowed",
    "cat /proc/self/environ": "'cat' is not an allowed executable",
    "gh api -X POST repos/octo/hello/issues": "API calls are read-only",
}
STUB_GH = """#!/bin/sh
printf '%s\\n' "$*" >> "$GH_CALLS"
echo "stub gh: $*"
"""


def _bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command}}


def _triage_run(tmp_path: Path) -> tuple[ActionRun, Path]:
    workspace = tmp_path / "workspace"
    shutil.copytree(REPO / "examples", workspace / "examples")
    script = workspace / "examples" / "issue-triage" / "script.json"
    turns: list[dict[str, Any]] = [{"tool_calls": [_bash(ALLOWED)]}]
    refused = list(REFUSED)
    turns += [{"tool_calls": [_bash(c) for c in refused[i : i + 5]]} for i in range(0, len(refused), 5)]
    turns.append({"text": "Applied: bug (scripted)."})
    script.write_text(json.dumps(turns))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "gh"
    stub.write_text(STUB_GH)
    stub.chmod(stub.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    calls = workspace / "gh-calls.txt"  # tools.bash is an allow-list: the stub may write the workspace only
    inputs = {
        "config": "examples/issue-triage/config.json",
        "prompt-file": "examples/issue-triage/prompt.txt",
        "model": "faux/scripted",
        "upload-artifacts": "false",
        "output-dir": "out",
        "pass-env": "GH_CALLS",  # the stub's log: the tools' environment is an allow-list (issue 29)
    }
    extra = {
        "AW_FAUX_SCRIPT": "script.json",
        "ISSUE_NUMBER": "42",
        "GH_REPO": "octo/hello",
        "GH_CALLS": str(calls),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
    }
    return run_action(tmp_path, inputs, extra), calls


def test_issue_triage_runs_its_gh_commands_and_refuses_everything_that_could_print_the_token(
    tmp_path: Path,
) -> None:
    run, calls = _triage_run(tmp_path)
    assert run.returncode == 0, run.stdout[-3000:]
    assert calls.read_text().splitlines() == ["issue view 42 --json title,body,labels,author"]

    transcript = (run.paths.workspace / "out" / "session.jsonl").read_text()
    results = [
        json.loads(line)["message"]
        for line in transcript.splitlines()
        if json.loads(line).get("type") == "message" and json.loads(line)["message"]["role"] == "toolResult"
    ]
    assert len(results) == 1 + len(REFUSED)
    first = results[0]
    assert not first["is_error"] and "stub gh: issue view 42" in first["content"][0]["text"]
    for result, (command, reason) in zip(results[1:], REFUSED.items(), strict=True):
        text = result["content"][0]["text"]
        assert result["is_error"], command
        assert text.startswith("bash command refused by config.json tools.bash"), (command, text)
        assert reason in text, (command, text)

    log = "\n".join(line for line in run.stdout.splitlines() if not line.startswith("::add-mask::"))
    everything = log + run.stderr + run.summary + transcript
    for path in (run.paths.workspace / "out").rglob("*"):
        if path.is_file():
            everything += path.read_text(errors="replace")
    for start in range(0, len(FAKE_GITHUB_TOKEN) - 8):
        assert FAKE_GITHUB_TOKEN[start : start + 8] not in everything
