"""The CLI's stop scheme, as a real process: signals and the deadline end the run with one result
object on stdout and exit 1 within the stop budget, even when something in the run is stuck
and the event loop cannot run (``run/cancel.py``, ``harness/supervisor.py``).

Each case starts ``python -m aw_action`` with a scripted run and asserts: the exit code, the one
JSON result (its stop reason), that the process ended within a bound well under the runner's
escalation, and that the JSONL on stderr stays parseable.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import base_env, write_run_files

STOP_BOUND_S = 7.5
"""The runner escalates SIGINT to SIGTERM 7.5 s after the first signal: the CLI must be done by then."""

SLOW_TOOL: list[dict[str, Any]] = [
    {"text": "Working.", "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 30"}}]},
    {"text": "never"},
]

BLOCKING_SETUP = """
import time

def setup(api):
    time.sleep(3600)  # synchronous: the event loop cannot run while this blocks
"""

BLOCKING_HANDLER = """
import time

def setup(api):
    api.on("request_end", lambda event, ctx: time.sleep(3600))
"""


def start(tmp_path: Path, script: list[dict[str, Any]], config: dict[str, Any]) -> subprocess.Popen[str]:
    cfg = {"engine": {"model": "faux/scripted"}, **config}
    config_path, prompt_path = write_run_files(tmp_path, cfg, "Do it.", script)
    env = base_env(tmp_path)
    return subprocess.Popen(
        [sys.executable, "-m", "aw_action", "--config", str(config_path), "--prompt", str(prompt_path)],
        env=env,
        cwd=env["GITHUB_WORKSPACE"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_event(proc: subprocess.Popen[str], name: str, timeout: float = 30) -> list[str]:
    """Read stderr until a JSONL event ``name`` appears; returns the lines read. The reading
    happens on a thread, so a process that never writes the event fails the test, not hangs it."""
    assert proc.stderr is not None
    stream = proc.stderr
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in iter(stream.readline, "")], daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        seen.append(line)
        if line.startswith("{") and json.loads(line).get("event") == name:
            return seen
    proc.kill()
    raise AssertionError(f"no {name} event; stderr so far: {''.join(seen)}")


def finish(proc: subprocess.Popen[str], seen: list[str], bound: float) -> tuple[int, dict[str, Any], float]:
    began = time.monotonic()
    out, err = proc.communicate(timeout=bound + 20)  # the extra only turns a hang into a failure
    took = time.monotonic() - began
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, f"stdout must hold exactly one JSON object: {out!r}\nstderr: {err}"
    for line in [*seen, *err.splitlines(keepends=True)]:
        if line.startswith("{"):
            json.loads(line)  # every JSONL line stays parseable
    return proc.returncode, json.loads(lines[0]), took


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_mid_turn_ends_the_run_cancelled(tmp_path: Path, sig: signal.Signals) -> None:
    proc = start(tmp_path, SLOW_TOOL, {})
    seen = wait_for_event(proc, "tool_start")
    proc.send_signal(sig)
    code, result, took = finish(proc, seen, STOP_BOUND_S)
    assert code == 1 and result["stop_reason"] == "cancelled" and result["conclusion"] == "cancelled"
    assert took < STOP_BOUND_S


def test_a_second_signal_during_shutdown_keeps_exit_1(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "stuck.py").write_text(BLOCKING_HANDLER)
    proc = start(tmp_path, SLOW_TOOL, {"harness": {"extensions": ["./stuck.py"]}})
    seen = wait_for_event(proc, "message_start")
    time.sleep(0.5)  # the handler is blocking by now
    proc.send_signal(signal.SIGINT)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    code, result, took = finish(proc, seen, STOP_BOUND_S)
    assert code == 1 and result["stop_reason"] == "cancelled"
    assert took < STOP_BOUND_S


def test_a_handler_that_blocks_the_event_loop_cannot_hold_a_cancel(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "stuck.py").write_text(BLOCKING_HANDLER)
    proc = start(tmp_path, SLOW_TOOL, {"harness": {"extensions": ["./stuck.py"]}})
    seen = wait_for_event(proc, "message_start")
    time.sleep(0.5)  # the handler is blocking by now
    proc.send_signal(signal.SIGTERM)
    code, result, took = finish(proc, seen, STOP_BOUND_S)
    assert code == 1 and result["stop_reason"] == "cancelled"
    assert "did not stop in time" in result["error"]
    assert took < STOP_BOUND_S


def test_the_deadline_holds_against_a_setup_that_blocks_the_event_loop(tmp_path: Path) -> None:
    """timeout-minutes 0.05 (3 s): steering cannot run, so the deadline watchdog stops the run."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "stuck.py").write_text(BLOCKING_SETUP)
    began = time.monotonic()
    proc = start(tmp_path, SLOW_TOOL, {"timeout-minutes": 0.05, "harness": {"extensions": ["./stuck.py"]}})
    code, result, _ = finish(proc, [], 3 + STOP_BOUND_S)
    assert code == 1 and result["stop_reason"] == "timeout"
    assert time.monotonic() - began < 3 + STOP_BOUND_S


def test_the_deadline_stops_a_run_whose_tool_ignores_it(tmp_path: Path) -> None:
    began = time.monotonic()
    proc = start(tmp_path, SLOW_TOOL, {"timeout-minutes": 0.05})
    code, result, _ = finish(proc, [], 3 + STOP_BOUND_S)
    assert code == 1 and result["stop_reason"] == "timeout"
    assert time.monotonic() - began < 3 + STOP_BOUND_S
