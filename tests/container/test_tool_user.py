"""The image's tools' user (docs/security.md), run the way the runner runs the action: the agent's
tools run as the workspace's owner (uid 1001 on GitHub's runners), or as the image's ``aw-agent``
when the workspace is root's; files the agent creates belong to that user on the host; the
harness's /proc entries, tini's and the records stay out of the agent's reach."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.container import engine
from tests.container.runner import ContainerRun, RunnerHost, run_container

KEY = "sk-ant-api03-ContainerPlantedKey0123456789"
RUNNER_UID = 1001
PROBES = [
    "id -u; id -un 2>/dev/null; id -G",
    "mkdir -p made && echo hi > made/by-bash.txt && echo made",
    "cat /proc/1/environ; cat /proc/$PPID/environ; tr '\\0' '\\n' < /proc/$PPID/environ | grep -c KEY",
    'ls -ln "$AW_OUTPUT_DIR"; rm -f "$AW_OUTPUT_DIR/session.jsonl"; echo forged >> "$AW_OUTPUT_DIR/session.jsonl"',
    "env | grep -c -i -E 'key|token|actions_' ; python -c 'import sys; print(sys.flags.safe_path)'",
]


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def run_probes(image: str, host: RunnerHost) -> tuple[ContainerRun, list[str]]:
    turns: list[dict[str, object]] = [
        {"text": "probing", "tool_calls": [{"name": "bash", "arguments": {"command": cmd}}]} for cmd in PROBES
    ]
    turns.append(
        {
            "text": "writing",
            "tool_calls": [{"name": "write", "arguments": {"path": "made/deep/by-write.txt", "content": "x\n"}}],
        }
    )
    # results[6]: who owns the agent's files while the run lasts
    check = "stat -c %u made/by-bash.txt made/deep/by-write.txt"
    turns.append({"text": "checking", "tool_calls": [{"name": "bash", "arguments": {"command": check}}]})
    turns.append({"text": "done"})
    (host.workspace / "script.json").write_text(json.dumps({"turns": turns}))
    inputs = {"prompt": "Probe.", "model": "faux/scripted", "anthropic-api-key": KEY, "upload-artifacts": "false"}
    run = run_container(image, host, inputs, {"AW_FAUX_SCRIPT": "script.json", "ACTIONS_RUNTIME_TOKEN": KEY + "-rt"})
    assert run.returncode == 0, run.log[-4000:]
    session = host.host_path(run.outputs["session-file"])
    results = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "message" and entry["message"]["role"] == "toolResult":
            results.append("".join(part.get("text", "") for part in entry["message"]["content"]))
    return run, results


def owners(root: Path) -> set[tuple[int, int]]:
    return {(p.stat().st_uid, p.stat().st_gid) for p in [root, *root.rglob("*")]}


def assert_out_of_reach(run: ContainerRun, results: list[str]) -> None:
    environ = results[2]
    assert environ.count("Permission denied") >= 2 and KEY not in environ
    records = results[3]
    assert "Permission denied" in records and " 0 " in records.splitlines()[1], "the output dir is root's"
    assert results[4].split() == ["0", "False"], "no credential in the tools' env, nor the image's PYTHONSAFEPATH"
    assert results[5].startswith("Successfully wrote"), results[5]
    assert KEY not in run.log.replace(f"::add-mask::{KEY}", "")
    (end,) = [json.loads(line) for line in run.log.splitlines() if line.startswith('{"event": "session_end"')]
    assert end["degraded"] == [], "the records are intact"


def test_tools_run_as_the_runner_s_uid_when_it_owns_the_workspace(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path, examples=False)
    for folder in (host.workspace, host.temp / "_github_home"):
        os.chown(folder, RUNNER_UID, RUNNER_UID)
    run, results = run_probes(image, host)
    assert results[0].split()[0] == str(RUNNER_UID) and results[0].split()[-1] == str(RUNNER_UID), results[0]
    assert owners(host.workspace / "made") == {(RUNNER_UID, RUNNER_UID)}, "the agent's files stay the runner's"
    assert_out_of_reach(run, results)


def test_a_root_owned_workspace_is_handed_to_aw_agent(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path, examples=False)
    (host.workspace / "README.md").write_text("root's checkout\n")
    run, results = run_probes(image, host)
    uid, name = results[0].split()[:2]
    assert name == "aw-agent" and uid != "0", results[0]
    assert set(results[6].split()) == {uid}, "the agent's files were the agent's while the run lasted"
    assert owners(host.workspace) == {(0, 0)}, "given back to root when the run ended, the agent's files too"
    assert_out_of_reach(run, results)
