"""Processes that outlive a call, on the image run as the runner runs it (issue 29): the workspace
and the file commands belong to uid 1001, the tools run as that uid, plain ``docker run`` (no
``CAP_SYS_ADMIN``, a read-only cgroup mount).

The fork chain is judged by what lands in ``GITHUB_ENV`` after the step, not by how it is
stopped. Every attack is bounded by ``docker run --pids-limit`` (and the chain ends itself)."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.container import engine
from tests.container.runner import ContainerRun, RunnerHost, container_name, docker_run_argv, read_back

RUNNER_UID = 1001
CHAIN = """
import os, time
path, started = "/github/file_commands/{env}", time.time()
os.setsid()
for _ in range(3):  # four chains
    if os.fork():
        break
n = 0
while True:
    if os.fork():
        os._exit(0)
    n += 1
    if n % 20 == 0:
        if time.time() - started > 20:
            os._exit(0)
        with open(path, "a") as fh:
            fh.write("BASH_ENV=/tmp/evil.sh\\n")
"""
BOMB = """
import os, time
n = 0
try:
    for _ in range(5000):
        if os.fork() == 0:
            time.sleep(120)
            os._exit(0)
        n += 1
except OSError as exc:
    print("forked", n, "then", exc)
"""


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def runner_host(tmp_path: Path) -> tuple[RunnerHost, Path]:
    """The runner's folders, the workspace and the file commands the runner's uid's; and the
    ``GITHUB_ENV`` file."""
    host = RunnerHost.under(tmp_path, examples=False)
    env_file = host.file_commands / f"set_env_{uuid.uuid4()}"
    env_file.write_text("")
    for path in (host.workspace, host.temp / "_github_home", host.file_commands, *host.file_commands.iterdir()):
        os.chown(path, RUNNER_UID, RUNNER_UID)
    return host, env_file


def run(
    image: str, host: RunnerHost, env_file: Path, turns: list[dict[str, Any]], pids: int, **harness: Any
) -> ContainerRun:
    """The action's step as the runner runs it, under ``docker run --pids-limit pids``."""
    config = {"engine": {"model": "faux/scripted"}, "harness": {"faux-script": "script.json", **harness}}
    (host.workspace / "config.json").write_text(json.dumps(config))
    (host.workspace / "script.json").write_text(json.dumps({"turns": [*turns, {"text": "done"}]}))
    inputs = {"prompt": "Go.", "config": "config.json", "upload-artifacts": "false"}
    name = container_name()
    argv = docker_run_argv(image, host, inputs, {"GITHUB_ENV": f"/github/file_commands/{env_file.name}"}, name=name)
    argv[2:2] = ["--pids-limit", str(pids)]
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=240)
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
    return read_back(host, proc.returncode, proc.stdout + proc.stderr, time.monotonic() - started)


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def events(done: ContainerRun, name: str) -> list[dict[str, Any]]:
    prefix = f'{{"event": "{name}"'
    return [json.loads(line) for line in done.log.splitlines() if line.startswith(prefix)]


def test_a_fork_chain_writes_nothing_to_github_env_after_the_step(image: str, tmp_path: Path) -> None:
    host, env_file = runner_host(tmp_path)
    (host.workspace / "chain.py").write_text(CHAIN.format(env=env_file.name))
    turns = [bash("python3 chain.py </dev/null >/dev/null 2>&1 & sleep 1; echo started")]
    done = run(image, host, env_file, turns, pids=200)
    assert done.returncode == 0, done.log[-4000:]
    time.sleep(1)
    assert env_file.read_text() == "", "the chain wrote GITHUB_ENV after the harness restored it"
    (ended,) = events(done, "processes")
    assert ended["method"] == "kill-uid" and ended["left"] == [], ended
    assert "all ended at once" in done.summary


def test_a_fork_bomb_meets_the_budget_and_the_step_ends_with_its_records(image: str, tmp_path: Path) -> None:
    host, env_file = runner_host(tmp_path)
    output = host.file_commands / host.output_name
    os.chmod(output, 0o644)
    (host.workspace / "bomb.py").write_text(BOMB)
    command = "echo BASH_ENV=/tmp/x >> $GITHUB_ENV; chmod 000 $GITHUB_OUTPUT; python3 bomb.py"
    done = run(image, host, env_file, [bash(command)], pids=300, **{"process-budget": 100})
    assert done.returncode == 0, done.log[-4000:]
    assert "Traceback" not in done.log
    assert env_file.read_text() == ""
    assert os.stat(output).st_mode & 0o7777 == 0o644 and done.outputs["conclusion"] == "success"
    (ended,) = events(done, "processes")
    assert ended["method"] == "kill-uid" and ended["left"] == [] and ended["process_budget"] == 100
    session = host.host_path(done.outputs["session-file"]).read_text().splitlines()
    results = [json.loads(line)["message"] for line in session if '"toolResult"' in line]
    text = results[0]["content"][0]["text"]
    assert "Resource temporarily unavailable" in text and "process budget" in text, text
    assert "GITHUB_ENV" in done.summary and "GITHUB_OUTPUT" in done.summary


def test_a_fork_chain_cannot_starve_the_harness_of_pids(image: str, tmp_path: Path) -> None:
    """Each link of a chain exits at once: reaped as it dies (the spawn server is its subreaper),
    it never piles up as a zombie, so a small container PID limit is never reached and the harness
    keeps its threads; and when PIDs do run out, the step still ends with its records."""
    host, env_file = runner_host(tmp_path)
    (host.workspace / "chain.py").write_text(CHAIN.format(env=env_file.name))
    turns = [bash("python3 chain.py </dev/null >/dev/null 2>&1 & sleep 4; echo after"), bash("echo again")]
    done = run(image, host, env_file, turns, pids=60)
    assert done.returncode in (0, 1, 2), done.log[-4000:]
    assert "Traceback" not in done.log and "can't start new thread" not in done.log, done.log[-4000:]
    assert env_file.read_text() == ""
    assert done.summary, "the step summary is written"
    (end,) = events(done, "session_end")
    assert end["stop_reason"] == "completed" and end["tool_calls"] == 2, end
    session = host.host_path(done.outputs["session-file"]).read_text().splitlines()
    results = [json.loads(line)["message"]["content"][0]["text"] for line in session if '"toolResult"' in line]
    assert results[1] == "again", "the links did not pile up as zombies: the next command could fork"


def test_out_of_pids_the_step_still_ends_with_its_records_and_no_traceback(image: str, tmp_path: Path) -> None:
    """A container PID limit below the budget: the bomb takes every PID it shares with the
    harness, whose end (kill, restore, records) still completes."""
    host, env_file = runner_host(tmp_path)
    (host.workspace / "bomb.py").write_text(BOMB)
    command = "echo BASH_ENV=/tmp/x >> $GITHUB_ENV; python3 bomb.py; echo after"
    done = run(image, host, env_file, [bash(command), bash("echo again")], pids=60)
    assert done.returncode in (0, 1, 2), done.log[-4000:]
    assert "Traceback" not in done.log and "can't start new thread" not in done.log, done.log[-4000:]
    assert env_file.read_text() == ""
    assert done.summary and "GITHUB_ENV" in done.summary
    (end,) = events(done, "session_end")
    assert end["degraded"] == ["file-commands"], end
    (ended,) = events(done, "processes")
    assert ended["method"] == "kill-uid" and ended["left"] == [], ended
