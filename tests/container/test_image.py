"""The built image, run the way the runner runs a container action (see runner.py): exit codes,
outputs, step summary, host-visible paths, the cancel path through tini, and its size."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.container import engine
from tests.container.runner import (
    ContainerRun,
    RunnerHost,
    container_name,
    docker_run_argv,
    read_back,
    run_container,
)
from tests.github.runner_sim import simulate

CANCEL_DEADLINE_S = 7.5
"""The runner sends SIGINT, then SIGTERM 7.5 s later, then kills: the run must be over by then."""
DEMO = {"config": "examples/demo/config.json", "prompt-file": "examples/demo/prompt.txt", "upload-artifacts": "false"}
SLOW = {"turns": [{"text": "thinking", "delay_s": 600}]}


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def assert_paths_open_from_the_host(run: ContainerRun) -> None:
    """No output names a container-only path; each path output opens from a later step."""
    for name, value in run.outputs.items():
        assert "/github/" not in value, f"{name} names a path inside the container: {value}"
    session = run.host.host_path(run.outputs["session-file"])
    assert session.is_file(), f"session-file {run.outputs['session-file']} does not open from the host"
    records = [json.loads(line) for line in session.read_text().splitlines()]
    assert records and records[0]["type"] == "session"


def test_demo_exits_0_with_outputs_and_summary(image: str, tmp_path: Path) -> None:
    run = run_container(image, RunnerHost.under(tmp_path), DEMO)
    assert run.returncode == 0, run.log[-4000:]
    assert run.outputs["conclusion"] == "success" and run.outputs["exit-code"] == "0"
    assert run.outputs["stop-reason"] == "completed" and int(run.outputs["turns"]) >= 1
    assert run.outputs["final-message"]
    assert run.summary.startswith("## ✅ Success · "), run.summary[:500]
    assert "<summary>Tokens, budgets and cost</summary>" in run.summary
    assert run.outputs["session-file"].startswith(str(run.host.temp / "aw-harness"))
    assert_paths_open_from_the_host(run)
    assert (run.host.workspace / "aw-demo-report.md").is_file(), "the agent's file lands in the host workspace"


def test_an_older_runner_without_the_temp_mount_gets_a_workspace_folder(image: str, tmp_path: Path) -> None:
    run = run_container(image, RunnerHost.under(tmp_path), DEMO, runner_temp_mount=False)
    assert run.returncode == 0, run.log[-4000:]
    assert run.outputs["session-file"] == ".aw-harness/session.jsonl"
    assert_paths_open_from_the_host(run)


def test_budget_exhaustion_exits_1(image: str, tmp_path: Path) -> None:
    inputs = {
        "config": "examples/matrix-smoke/config.json",
        "prompt-file": "examples/matrix-smoke/prompt.txt",
        "max-effective-tokens": "5000",
        "upload-artifacts": "false",
    }
    run = run_container(image, RunnerHost.under(tmp_path), inputs, {"AW_FAUX_SCRIPT": "script-long.json"})
    assert run.returncode == 1, run.log[-4000:]
    assert (run.outputs["conclusion"], run.outputs["stop-reason"]) == ("failure", "budget_exceeded")
    assert run.outputs["exit-code"] == "1"
    assert_paths_open_from_the_host(run)


def test_invalid_input_exits_2_naming_it(image: str, tmp_path: Path) -> None:
    run = run_container(image, RunnerHost.under(tmp_path), {**DEMO, "max-turns": "lots"})
    assert run.returncode == 2, run.log[-4000:]
    assert (run.outputs["stop-reason"], run.outputs["exit-code"]) == ("invocation_error", "2")
    errors = simulate(run.log).named("error")
    assert [e.properties.get("title") for e in errors] == ["aw-harness: Invalid input 'max-turns'"], run.log


def _start_slow_run(image: str, tmp_path: Path) -> tuple[subprocess.Popen[str], RunnerHost, str]:
    """``docker run`` in the foreground (the runner's child process) on a model that never answers;
    returns once the first turn has started."""
    host = RunnerHost.under(tmp_path, examples=False)
    (host.workspace / "slow.json").write_text(json.dumps(SLOW))
    name = container_name()
    inputs = {"model": "faux/scripted", "prompt": "Wait for the model.", "upload-artifacts": "false"}
    argv = docker_run_argv(image, host, inputs, {"AW_FAUX_SCRIPT": "slow.json"}, name=name)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        logs = engine.docker("logs", name, check=False).stdout
        if "::group::Turn 1" in logs:
            return proc, host, name
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    engine.docker("rm", "-f", name, check=False)
    raise AssertionError(f"the run never started its first turn:\n{proc.communicate()[0][-4000:]}")


def _exit_code(name: str) -> int:
    return int(engine.docker("inspect", "-f", "{{.State.ExitCode}}", name).stdout.strip())


def test_docker_stop_ends_the_run_in_time_with_cancelled_outputs_and_tini_is_pid_1(image: str, tmp_path: Path) -> None:
    proc, host, name = _start_slow_run(image, tmp_path)
    try:
        pid1 = engine.docker("exec", name, "cat", "/proc/1/cmdline").stdout.split("\0")
        assert pid1[:2] == ["/usr/bin/tini", "--"], pid1
        assert pid1[2:5] == ["/opt/aw/bin/python", "-m", "aw_action"], pid1
        started = time.monotonic()
        engine.docker("stop", "-t", "30", name, timeout=60)  # SIGTERM; docker would SIGKILL after 30 s
        elapsed = time.monotonic() - started
        log, _ = proc.communicate(timeout=30)
        code = _exit_code(name)
    finally:
        proc.kill()
        engine.docker("rm", "-f", name, check=False)
    run = read_back(host, code, log, elapsed)
    assert elapsed < CANCEL_DEADLINE_S, f"docker stop took {elapsed:.1f} s"
    assert code == 1, f"exit code {code} (137 would mean it had to be killed)\n{log[-3000:]}"
    assert (run.outputs["conclusion"], run.outputs["stop-reason"]) == ("cancelled", "cancelled")
    assert_paths_open_from_the_host(run)


def test_sigint_to_the_docker_cli_is_the_runner_cancel(image: str, tmp_path: Path) -> None:
    """The runner signals its child, the docker CLI, which proxies the signal to PID 1."""
    proc, host, name = _start_slow_run(image, tmp_path)
    try:
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        log, _ = proc.communicate(timeout=30)
        elapsed = time.monotonic() - started
        code = proc.returncode
    finally:
        proc.kill()
        engine.docker("rm", "-f", name, check=False)
    run = read_back(host, code, log, elapsed)
    assert elapsed < CANCEL_DEADLINE_S, f"the run took {elapsed:.1f} s to end after SIGINT"
    assert code == 1, log[-3000:]
    assert run.outputs["conclusion"] == "cancelled"


def test_image_size_is_reported(image: str, record_property: pytest.RecordProperty) -> None:
    size = engine.image_size_bytes(image)
    record_property("image_size_bytes", size)
    print(f"\nimage {image}: {size / 1e6:.0f} MB")
    assert 50e6 < size < 2e9, "a size outside this range means the build went wrong"
