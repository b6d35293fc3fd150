"""The fault matrix's rig: the real CLI as a subprocess, the real ``anthropic`` SDK, a local
server that misbehaves on cue, and one contract check for every fault.

``run_fault`` starts ``python -m aw_action`` against a ``WireServer``, optionally sends a signal
once a condition holds (the server saw a request, a tool started, ...), and returns what the run
left. Every process it starts carries ``AW_FAULT_CASE=<uuid>`` in its environment (the harness
passes its environment to the agent's shell), so ``leftovers`` finds any descendant that
outlived the run, however it detached.

``check_contract`` asserts what every fault must leave (issue 10, item 6):
- the specified exit code, and stdout is exactly one JSON object that says the same;
- every JSON line on stderr, and every line of every ``*.jsonl`` file written, parses;
- the step summary and ``context-provenance.jsonl`` were written;
- nothing already written was lost (the summary keeps what an earlier step wrote);
- no process of the run is left behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import base_env, write_run_files
from tests.procfs import processes
from tests.servers import anthropic as wire
from tests.servers.wire import Reply, WireServer

KEY = "sk-ant-FAULT-MATRIX-0000"
FAST = {"AW_RETRY_BASE_DELAY_MS": "10", "AW_RETRY_MAX_DELAY_MS": "50", "AW_RETRY_JITTER_MS": "0"}
EARLIER_STEP = "## An earlier step\n\nwrote this first.\n"
RUN_LIMIT_S = 30.0
"""A hang guard for the subprocess, not a timing assertion."""


@dataclass
class FaultRun:
    returncode: int
    stdout: str
    stderr: str
    tmp: Path
    case: str
    elapsed_s: float
    signalled_s: float | None = None
    """Seconds from the signal to the exit, when a signal was sent."""
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def output_dir(self) -> Path:
        return self.tmp / "out"

    @property
    def summary(self) -> str:
        path = self.tmp / "summary.md"
        return path.read_text() if path.exists() else ""

    @property
    def result(self) -> dict[str, Any]:
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert len(lines) == 1, f"stdout must hold exactly one JSON object, got: {self.stdout!r}"
        value: dict[str, Any] = json.loads(lines[0])
        return value

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        out = [json.loads(line) for line in self.stderr.splitlines() if line.startswith("{")]
        return [e for e in out if name is None or e.get("event") == name]

    def transcript(self) -> list[dict[str, Any]]:
        path = self.output_dir / "session.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def tool_turn(command: str, text: str = "Working.") -> Reply:
    return wire.stream_reply(text=text, tool_calls=[("bash", {"command": command})], use=wire.usage(100, 20))


def final_turn(text: str = "All done.") -> Reply:
    return wire.stream_reply(text=text, use=wire.usage(120, 10))


LEAVE_BEHIND = "setsid sleep 1000 & nohup sleep 1000 >/dev/null 2>&1 & ( ( sleep 1000 & ) & ); echo started"
"""A tool call that leaves detached processes running: the run must still end with none."""


def run_fault(
    tmp: Path,
    replies: list[Reply] | None = None,
    *,
    url: str | None = None,
    config: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
    send: signal.Signals | None = None,
    when: Callable[[WireServer, list[str]], bool] | None = None,
    second: signal.Signals | None = None,
    second_after_s: float = 0.5,
    server: WireServer | None = None,
    limit_s: float = RUN_LIMIT_S,
) -> FaultRun:
    """Run the CLI once. ``send`` is delivered when ``when(server, stderr_lines)`` first holds;
    ``second`` ``second_after_s`` later (a runner that escalates), unless the process has ended.
    A run still alive after ``limit_s`` is killed (and then fails its contract)."""
    own = server is None and url is None
    server = server or WireServer()
    if own:
        server.start()
    try:
        if replies:
            server.script(*replies)
        return _run(tmp, url or server.url, config, env, send, when, (second, second_after_s), server, limit_s)
    finally:
        if own:
            server.stop()


def _run(
    tmp: Path,
    url: str,
    config: dict[str, Any] | None,
    env: dict[str, str] | None,
    send: signal.Signals | None,
    when: Callable[[WireServer, list[str]], bool] | None,
    second: tuple[signal.Signals | None, float],
    server: WireServer,
    limit_s: float,
) -> FaultRun:
    case = uuid.uuid4().hex
    cfg = {"engine": {"id": "aw", "model": "claude-sonnet-4.6"}, "timeout-minutes": 1, **(config or {})}
    config_path, prompt_path = write_run_files(tmp, cfg, "Do the task, then stop.")
    (tmp / "summary.md").write_text(EARLIER_STEP)
    full_env = base_env(
        tmp,
        ANTHROPIC_API_KEY=KEY,
        ANTHROPIC_BASE_URL=url,
        GITHUB_STEP_SUMMARY=str(tmp / "summary.md"),
        AW_FAULT_CASE=case,
        **{**FAST, **(env or {})},
    )
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "aw_action", "--config", str(config_path), "--prompt", str(prompt_path)],
        env=full_env,
        cwd=full_env["GITHUB_WORKSPACE"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    out: list[str] = []
    err: list[str] = []
    readers = [
        threading.Thread(target=lambda: out.extend(proc.stdout or []), daemon=True),
        threading.Thread(target=lambda: err.extend(proc.stderr or []), daemon=True),
    ]
    for reader in readers:
        reader.start()
    signalled: float | None = None
    try:
        if send is not None:
            deadline = time.monotonic() + limit_s
            while not (when or (lambda s, e: bool(s.requests)))(server, err):
                assert proc.poll() is None, "the run ended before the fault's moment came"
                assert time.monotonic() < deadline, "the fault's moment never came"
                time.sleep(0.02)
            time.sleep(0.2)
            signalled = time.monotonic()
            proc.send_signal(send)
            again, after_s = second
            if again is not None:
                time.sleep(after_s)
                proc.send_signal(again)  # skipped once the process has ended (it polls first)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=limit_s)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for reader in readers:
            reader.join(timeout=10)
    ended = time.monotonic()
    return FaultRun(
        proc.returncode,
        "".join(out),
        "".join(err),
        tmp,
        case,
        ended - started,
        None if signalled is None else ended - signalled,
    )


def leftovers(case: str) -> list[int]:
    """Live processes (zombies excluded) that carry this case's marker."""
    marker = f"AW_FAULT_CASE={case}".encode()
    return [p.pid for p in processes() if marker in (p.read("environ") or b"").split(b"\0")]


def wait_no_leftovers(case: str, within_s: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within_s
    while (left := leftovers(case)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:  # never leave a test's processes on the machine, whatever the verdict
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return left


def parse_all_jsonl(run: FaultRun) -> dict[str, int]:
    """Every JSON line on stderr and in every ``*.jsonl`` under the output dir parses; returns
    the line count per file."""
    counts = {"<stderr>": len(run.events())}
    for path in sorted(run.output_dir.rglob("*.jsonl")):
        lines = path.read_bytes().decode("utf-8").splitlines()  # valid UTF-8 too
        for n, line in enumerate(lines, 1):
            try:
                json.loads(line)
            except ValueError as exc:
                raise AssertionError(f"{path.name} line {n} is not JSON: {exc}: {line[:200]!r}") from None
        counts[path.name] = len(lines)
    return counts


def check_contract(run: FaultRun, exit_code: int, stop_reason: str | None = None) -> dict[str, Any]:
    """The promises every fault must keep; returns the parsed result for case-specific checks."""
    try:
        assert run.returncode == exit_code, f"exit {run.returncode}, wanted {exit_code}; stderr:\n{run.stderr[-3000:]}"
        result = run.result
        assert result["exit_code"] == exit_code
        if stop_reason is not None:
            assert result["stop_reason"] == stop_reason, result
        assert "Traceback" not in run.stderr, run.stderr[-3000:]
        parse_all_jsonl(run)
        assert run.summary.startswith(EARLIER_STEP), "what an earlier step wrote to the summary is kept"
        assert re.search(r"^## (✅|⚠️|❌|⏹️) \w+ · ", run.summary, re.M), "the step summary records this run"
        assert (run.output_dir / "context-provenance.jsonl").exists(), "provenance written"
    finally:
        left = wait_no_leftovers(run.case)
    assert left == [], f"processes left behind: {left}"
    return result
