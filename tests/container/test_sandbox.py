"""The image run as the runner runs it (workspace owned by uid 1001) against issue 19's findings:

- the agent arms its repository (a clean filter, hooks, an fsmonitor, a textconv, an external
  diff, a pager) and calls ``create_pull_request``: the patch is made, none of the agent's
  programs runs for the harness, and no secret (model key, GitHub token, Actions runtime and
  OIDC tokens) reaches any file; the agent's own ``git add`` (the control) does run them, as
  uid 1001, without a secret;
- a read-only workflow step whose allowed ``git diff`` runs an agent-configured external diff
  gets EACCES, and so does a read-only run's write and TCP connection; the step summary and the
  records say which mode applied and what the kernel offered.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import session_tool_texts
from tests.container import engine
from tests.container.runner import ContainerRun, RunnerHost, run_container

RUNNER_UID = 1001
KEY = "sk-ant-api03-ContainerSandboxKey0123456789"
SECRETS = {
    "anthropic-api-key": KEY,
    "github-token": "ghs_ContainerSandboxToken0123456789abcd",
}
RUNTIME = {
    "ACTIONS_RUNTIME_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.container.runtime",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.container.oidc",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "http://127.0.0.1:9/oidc",
}
ALL_SECRETS = [*SECRETS.values(), RUNTIME["ACTIONS_RUNTIME_TOKEN"], RUNTIME["ACTIONS_ID_TOKEN_REQUEST_TOKEN"]]
MARKERS = "/github/runner_temp/markers"
EVIL = f"""#!/bin/sh
out="{MARKERS}/${{EVIL_TAG:-harness}}-$1-$$"
{{ echo "uid=$(id -u)"; env; cat /proc/1/environ 2>/dev/null | tr '\\0' '\\n'; }} > "$out"
exec cat
"""
ARM = (
    "printf '%s' \"$EVIL\" > .evil.sh && chmod +x .evil.sh && mkdir -p .githooks && "
    "for h in pre-commit post-commit post-index-change reference-transaction; do "
    "printf '#!/bin/sh\\nexec /github/workspace/.evil.sh hook </dev/null\\n' > .githooks/$h; "
    "chmod +x .githooks/$h; done && "
    "git config core.fsmonitor '/github/workspace/.evil.sh fsmonitor' && git config core.hooksPath .githooks && "
    "git config core.pager '/github/workspace/.evil.sh pager' && "
    "git config filter.evil.clean '/github/workspace/.evil.sh clean' && git config filter.evil.required true && "
    "git config diff.evil.textconv '/github/workspace/.evil.sh textconv' && "
    "git config diff.external '/github/workspace/.evil.sh external' && "
    "echo '* filter=evil diff=evil' > .gitattributes && echo 'changed by the agent' >> README.md && echo armed"
)


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def runner_host(tmp_path: Path) -> RunnerHost:
    host = RunnerHost.under(tmp_path, examples=False)
    markers = host.temp / "markers"
    markers.mkdir()
    markers.chmod(0o777)
    return host


def repository(host: RunnerHost) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(host.temp), "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b"}
    env.update(GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@b")
    (host.workspace / "README.md").write_text("# hello\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=host.workspace, env=env, check=True)
    subprocess.run(["chown", "-R", f"{RUNNER_UID}:{RUNNER_UID}", str(host.workspace)], check=True)
    os.chown(host.temp / "_github_home", RUNNER_UID, RUNNER_UID)


def start(
    image: str, host: RunnerHost, config: dict[str, Any], turns: list[dict[str, Any]], **inputs: str
) -> ContainerRun:
    folder = host.temp / "cfg"
    folder.mkdir()
    (folder / "script.json").write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    config = {"engine": {"model": "faux/scripted"}, **config}
    config.setdefault("harness", {})["faux-script"] = "script.json"
    config.setdefault("tools", {})["pass-env"] = ["EVIL"]  # the agent's armoury: granted, as the env is an allow-list
    (folder / "config.json").write_text(json.dumps(config))
    given = {"prompt": "Go.", "config": "/github/runner_temp/cfg/config.json", "upload-artifacts": "false"}
    given.update({name: value for name, value in SECRETS.items()}, **inputs)
    return run_container(image, host, given, {**RUNTIME, "EVIL": EVIL})


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def tool_results(run: ContainerRun) -> list[str]:
    return session_tool_texts(run.host.host_path(run.outputs["session-file"]))


def everything(host: RunnerHost) -> dict[str, str]:
    return {str(p): p.read_text(errors="replace") for p in host.temp.rglob("*") if p.is_file()}


def test_create_pull_request_on_an_armed_repository_runs_nothing_and_leaks_nothing(image: str, tmp_path: Path) -> None:
    host = runner_host(tmp_path)
    repository(host)
    pull = {"tool_calls": [{"name": "create_pull_request", "arguments": {"title": "t", "body": "b", "branch": "fix"}}]}
    turns = [bash(ARM), bash("export EVIL_TAG=agent; git add -A && git diff --cached --stat | tail -1"), pull]
    run = start(image, host, {"safe-outputs": {"create-pull-request": {}}}, turns)
    assert run.returncode == 0, run.log[-4000:]
    results = tool_results(run)
    assert "armed" in results[0] and '"result": "success"' in results[2], results

    patch = (host.temp / "aw-harness" / "aw-fix.patch").read_text()
    assert "+changed by the agent" in patch
    markers = {name: (host.temp / "markers" / name).read_text() for name in os.listdir(host.temp / "markers")}
    assert markers, "control: the agent's own git add ran its filter"
    assert [name for name in markers if not name.startswith("agent-")] == [], "a program ran for the harness"
    assert all(text.startswith(f"uid={RUNNER_UID}\n") for text in markers.values())
    files = everything(host)
    leaks = {path: [s for s in ALL_SECRETS if s in text] for path, text in files.items()}
    assert {path: found for path, found in leaks.items() if found} == {}


READ_ONLY_WORKFLOW = """\
version: 1
id: ro
command: ro
description: arm the repository, then inspect it read-only
start: arm
steps:
  arm:
    prompt: Arm.
    permissions: {tools: [bash], bash: {mode: unrestricted}}
    transitions: {armed: inspect}
  inspect:
    prompt: Inspect.
    permissions: {tools: [read, bash], bash: {mode: read-only}}
    transitions: {done: $done}
"""


def test_a_read_only_workflow_step_gets_eacces_and_the_summary_says_so(image: str, tmp_path: Path) -> None:
    host = runner_host(tmp_path)
    repository(host)
    (host.temp / "wf").mkdir()
    (host.temp / "wf" / "ro.workflow.yml").write_text(READ_ONLY_WORKFLOW)
    external = "git config diff.external 'sh -c \"echo pwned > pwned.txt\"' && echo two >> README.md && echo armed"
    complete = "workflow_complete_step"
    turns = [
        bash(external),
        {"tool_calls": [{"name": complete, "arguments": {"outcome": "armed", "summary": "armed"}}]},
        bash("git diff"),
        {"tool_calls": [{"name": complete, "arguments": {"outcome": "done", "summary": "inspected"}}]},
    ]
    run = start(image, host, {}, turns, workflow="/github/runner_temp/wf/ro.workflow.yml")
    assert run.returncode == 0, run.log[-4000:]
    results = tool_results(run)
    assert "Permission denied" in results[2], results[2]
    assert not (host.workspace / "pwned.txt").exists()
    records = [json.loads(line) for line in run.log.splitlines() if line.startswith('{"event": "sandbox"')]
    assert [(r["scope"], r.get("step"), r["bash"]) for r in records] == [
        ("run", None, "full"),
        ("step", "arm", "full"),
        ("step", "inspect", "read-only"),
    ]
    assert records[0]["landlock_abi"] >= 1 and records[0]["no_new_privs"] is True
    assert "Sandbox: bash full (TCP allowed)" in run.summary and "read-only workflow steps: inspect" in run.summary


def test_a_read_only_run_cannot_write_or_connect_in_the_container(image: str, tmp_path: Path) -> None:
    host = runner_host(tmp_path)
    repository(host)
    connect = "python3 -c \"import socket; socket.create_connection(('127.0.0.1', 9))\" 2>&1 | tail -1"
    dns = 'python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)" 2>&1 | tail -1'
    turns = [bash("echo x > made.txt; touch /tmp/made.txt; touch $HOME/made.txt"), bash(connect), bash(dns)]
    run = start(image, host, {}, turns, sandbox="read-only")
    assert run.returncode == 0, run.log[-4000:]
    results = tool_results(run)
    assert results[0].count("Permission denied") == 3, results[0]
    assert "PermissionError" in results[1], results[1]
    assert not (host.workspace / "made.txt").exists() and not (host.temp / "_github_home" / "made.txt").exists()
    assert "PermissionError" in results[2], results[2]  # UDP too: Docker's default seccomp profile allows the filter
    assert (
        "Sandbox: bash read-only (no network sockets), file tools read-only (harness.sandbox: read-only)" in run.summary
    )
    assert "UDP/raw socket filter: yes" in run.summary


def test_mode_replay_in_the_image_replays_a_recorded_run_and_catches_a_change(image: str, tmp_path: Path) -> None:
    """Issue 24's mode, as the runner runs the image: a run recorded by one step is replayed by a
    later one with no model and no key (exit 0, ``replay: same``); after the workspace changes, the
    replay stops at the differing result (exit 1, ``diverged``) and the log shows the diff."""
    host = runner_host(tmp_path)
    repository(host)
    recorded = start(image, host, {}, [bash("cat README.md")], **{"output-dir": "/github/runner_temp/recorded"})
    assert recorded.returncode == 0, recorded.log[-4000:]

    def replay(output: str) -> ContainerRun:
        inputs = {"mode": "replay", "replay-records": "/github/runner_temp/recorded", "output-dir": output}
        return run_container(image, host, {**inputs, "upload-artifacts": "false"}, dict(RUNTIME))

    same = replay("/github/runner_temp/replay-1")
    assert same.returncode == 0 and same.outputs["replay"] == "same", same.log[-4000:]
    (host.workspace / "README.md").write_text("# changed on the pull request\n")
    changed = replay("/github/runner_temp/replay-2")
    assert changed.returncode == 1 and changed.outputs["replay"] == "diverged", changed.log[-4000:]
    assert "+# changed on the pull request" in changed.log
    files = everything(host)
    assert {
        path: [s for s in ALL_SECRETS if s in text]
        for path, text in files.items()
        if any(s in text for s in ALL_SECRETS)
    } == {}
