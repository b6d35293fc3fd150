"""Cancellation as the runner does it: a signal to the entrypoint mid-turn. The run stops, the
partial result, outputs, step summary and artifact are flushed, and the process exits non-zero
well within the 7.5 s the runner allows before it escalates."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.action.launch import Paths, action_env, finish, start_action, write_script
from tests.github.artifact_server import ArtifactServer, runtime_token
from tests.github.silent import SilentServer

TOKEN = runtime_token("7", "7")
EXIT_BUDGET_S = 7.0


class LineWatch:
    """Reads the process's stdout on a thread and signals when a marker line shows up."""

    def __init__(self, stream: object, marker: str) -> None:
        self.lines: list[str] = []
        self.seen = threading.Event()
        self._marker = marker
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            self.lines.append(line)
            if self._marker in line:
                self.seen.set()

    def text(self) -> str:
        self._thread.join(timeout=10)
        return "".join(self.lines)


@pytest.mark.parametrize(
    ("sig", "slow_turn", "marker"),
    [
        (signal.SIGTERM, {"text": "thinking", "delay_s": 60}, '"turn_start", "turn": 2'),
        (signal.SIGINT, {"tool_calls": [{"name": "bash", "arguments": {"command": "sleep 60"}}]}, '"tool_start"'),
    ],
    ids=["sigterm-mid-request", "sigint-mid-tool"],
)
def test_signal_mid_turn_flushes_everything_and_exits_in_time(
    tmp_path: Path, sig: signal.Signals, slow_turn: dict[str, object], marker: str
) -> None:
    paths = Paths.under(tmp_path)
    first = {"text": "step one", "tool_calls": [{"name": "bash", "arguments": {"command": "echo one"}}]}
    turns = [first, slow_turn, {"text": "never reached"}] if "delay_s" in slow_turn else [slow_turn, {"text": "no"}]
    script = write_script(paths.workspace, turns)
    with ArtifactServer(TOKEN) as server:
        env = action_env(
            paths,
            {"prompt": "Do it.", "model": "faux/scripted"},
            {"AW_FAUX_SCRIPT": str(script), "ACTIONS_RUNTIME_TOKEN": TOKEN, "ACTIONS_RESULTS_URL": server.url},
        )
        proc = start_action(paths, env)
        watch = LineWatch(proc.stdout, marker)
        assert watch.seen.wait(timeout=30), "the slow turn never started"
        time.sleep(0.2)
        signalled = time.monotonic()
        proc.send_signal(sig)
        proc.wait(timeout=15)
        elapsed = time.monotonic() - signalled
        stdout = watch.text()
        proc.stdout = None  # already drained by the watcher
        run = finish(proc, paths, signalled)
    assert elapsed < EXIT_BUDGET_S, f"exit took {elapsed:.1f}s"
    assert run.returncode == 1
    assert run.outputs["conclusion"] == "cancelled"
    assert run.outputs["stop-reason"] == "cancelled"
    assert run.outputs["exit-code"] == "1"
    assert run.outputs["artifact-id"] == "4242"
    assert '{"conclusion": "cancelled"' in stdout
    assert "never reached" not in stdout
    assert "cancelled" in run.summary, "the step summary records the cancelled run"
    assert server.named("FinalizeArtifact"), "the artifact was finalized"


def test_a_hung_trace_endpoint_does_not_cost_the_summary_on_cancel(tmp_path: Path) -> None:
    """The span flush on cancel is bounded tightly enough that the local record still gets out."""
    paths = Paths.under(tmp_path)
    first = {"text": "step one", "tool_calls": [{"name": "bash", "arguments": {"command": "echo one"}}]}
    script = write_script(paths.workspace, [first, {"text": "thinking", "delay_s": 60}])
    with SilentServer() as endpoint:
        inputs = {"prompt": "x", "model": "faux/scripted", "otlp-endpoint": endpoint, "upload-artifacts": "false"}
        proc = start_action(paths, action_env(paths, inputs, {"AW_FAUX_SCRIPT": str(script)}))
        watch = LineWatch(proc.stdout, '"turn_start", "turn": 2')
        assert watch.seen.wait(timeout=30), "the slow turn never started"
        signalled = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=15)
        elapsed = time.monotonic() - signalled
        stdout = watch.text()
        proc.stdout = None
        run = finish(proc, paths, signalled)
    assert elapsed < EXIT_BUDGET_S, f"exit took {elapsed:.1f}s"
    assert run.returncode == 1 and run.outputs["conclusion"] == "cancelled"
    assert "did not stop in time" not in stdout, "the run wound down on its own"
    assert "## ⏹️ Cancelled · Stopped before it finished" in run.summary and "`cancelled`" in run.summary
    lines = (paths.runner_temp / "aw-harness" / "aw_session.jsonl").read_text().splitlines()
    assert json.loads(lines[-1])["type"] == "session.collection"


STUCK_EXTENSION = """
import asyncio, time

def setup(api):
    async def stuck_async(event, ctx):
        print("EXTENSION BLOCKING NOW")
        await asyncio.sleep(60)

    def stuck_sync(event, ctx):
        print("EXTENSION BLOCKING NOW")
        time.sleep(60)

    if "{mode}" == "sync":
        api.on("session_shutdown", stuck_sync)  # the final message is known by then
    else:
        api.on("turn_end", stuck_async)
"""
STEP_ENV_KEY = "sk-PLANTED-step-env-key-0042"


@pytest.mark.parametrize("mode", ["async", "sync"])
def test_a_stuck_extension_cannot_hold_the_step_past_the_budget(tmp_path: Path, mode: str) -> None:
    """An extension that ignores the cancel (awaiting forever, or blocking the event loop) is
    abandoned: the outputs still say cancelled and the process exits within the budget."""
    paths = Paths.under(tmp_path)
    script = write_script(paths.workspace, [{"text": f"one {STEP_ENV_KEY}"}, {"text": "two"}])
    (paths.workspace / "stuck.py").write_text(STUCK_EXTENSION.replace("{mode}", mode))
    inputs = {"prompt": "x", "model": "faux/scripted", "extensions": "./stuck.py", "upload-artifacts": "false"}
    extra = {"AW_FAUX_SCRIPT": str(script), "OPENAI_API_KEY": STEP_ENV_KEY}
    proc = start_action(paths, action_env(paths, inputs, extra))
    watch = LineWatch(proc.stdout, "EXTENSION BLOCKING NOW")
    assert watch.seen.wait(timeout=30), "the extension never ran"
    signalled = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=15)
    elapsed = time.monotonic() - signalled
    stdout = watch.text()
    proc.stdout = None
    run = finish(proc, paths, signalled)
    assert elapsed < EXIT_BUDGET_S, f"exit took {elapsed:.1f}s"
    assert run.returncode == 1
    assert (run.outputs["conclusion"], run.outputs["stop-reason"], run.outputs["exit-code"]) == (
        "cancelled",
        "cancelled",
        "1",
    )
    errors = [line for line in stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert STEP_ENV_KEY not in stdout and STEP_ENV_KEY not in json.dumps(run.outputs)
