"""A stdio server given secrets runs as a user other than the tools' when the harness (root)
switches users: the agent's shell cannot read them in the server's /proc environ, while the
server has them. Root only (the tests skip otherwise, saying why)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aw_action.security.confinement.identity import SECRET_HOLDER_UID, ToolIdentity
from tests.conftest import base_env, run_cli, write_run_files
from tests.procfs import processes

RAW = Path(__file__).with_name("raw_server.py")
SECRET = "docs-secret-value-98765"
SCAN = "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null; done | grep -c '^DOCS_TOKEN=' || true"


def test_a_server_given_secrets_runs_as_another_user_the_agent_cannot_read(
    tmp_path: Path, user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    server = shared_tmp / "raw_server.py"
    shutil.copy(RAW, server)
    os.chmod(server, 0o644)
    turns = [
        {"tool_calls": [{"name": "mcp__docs__getenv", "arguments": {"name": "DOCS_TOKEN"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": SCAN}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "id -u"}}]},
        {"text": "done"},
    ]
    servers = {"docs": {"command": "/usr/bin/python3", "args": [str(server)], "env-vars": ["DOCS_TOKEN"]}}
    cfg, prompt = write_run_files(
        tmp_path, {"engine": {"model": "faux/scripted"}, "mcp-servers": servers}, script=turns
    )
    env = base_env(tmp_path, DOCS_TOKEN=SECRET, GITHUB_WORKSPACE=str(user_dir), AW_OUTPUT_DIR=str(shared_tmp / "out"))
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], env, cwd=user_dir, timeout=120)
    assert run.returncode == 0, run.stderr[-3000:]
    entries = [json.loads(line) for line in (shared_tmp / "out" / "session.jsonl").read_text().splitlines()]
    results = [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "toolResult"]
    texts = ["".join(b.get("text", "") for b in r["content"]) for r in results]
    assert f"uid={SECRET_HOLDER_UID}" in texts[0] and "(unset)" not in texts[0], texts[0]
    assert SECRET not in texts[0], "redacted in what the model and the records see"
    assert texts[2].strip().endswith(str(tool_user.uid)), "control: the agent's shell is the tools' user"
    assert texts[1].strip().splitlines()[-1] == "0", "the agent's shell read the server's environment"
    assert "the agent can read the variables" not in run.stderr


def _lingering(token: str) -> list[str]:
    """``pid uid`` of every live process whose argv holds ``token``."""
    found = []
    for process in processes():
        with contextlib.suppress(OSError):
            if token.encode() in process.argv():
                found.append(f"{process.pid} uid {process.path.stat().st_uid}")
    return found


def _session_text(shared_tmp: Path) -> str:
    try:
        return (shared_tmp / "out" / "session.jsonl").read_text()
    except OSError:
        return ""


def _kill_lingering(token: str) -> None:
    for line in _lingering(token):
        with contextlib.suppress(OSError):
            os.kill(int(line.split()[0]), signal.SIGKILL)


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["completed", "signal", "deadline"])
def test_a_secret_holding_server_and_its_children_die_with_the_run(
    tmp_path: Path, user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity, ending: str
) -> None:
    """The server runs as another uid than the tools' (kill(-1) as the tools' user cannot reach
    it), ignores SIGTERM and starts a child in a session of its own that ignores it too: after the
    run, ended normally, by SIGTERM mid-call or by its deadline mid-call, none of them is alive."""
    server = shared_tmp / "raw_server.py"
    shutil.copy(RAW, server)
    os.chmod(server, 0o644)
    token = f"aw-linger-{secrets.token_hex(6)}"
    turns: list[dict[str, object]] = [
        {"tool_calls": [{"name": "mcp__docs__getenv", "arguments": {"name": "DOCS_TOKEN"}}]},
        {"text": "done"},
    ]
    if ending != "completed":
        turns.insert(1, {"tool_calls": [{"name": "mcp__docs__hang", "arguments": {"name": "x"}}]})
    servers = {
        "docs": {
            "command": "/usr/bin/python3",
            "args": [str(server)],
            "env-vars": ["DOCS_TOKEN"],
            "env": {"RAW_SERVER_LINGER": token},
            "tool-timeout": 300,
        }
    }
    config: dict[str, object] = {"engine": {"model": "faux/scripted"}, "mcp-servers": servers}
    if ending == "deadline":
        config["timeout-minutes"] = 0.15
    cfg, prompt = write_run_files(tmp_path, config, script=turns)
    env = base_env(tmp_path, DOCS_TOKEN=SECRET, GITHUB_WORKSPACE=str(user_dir), AW_OUTPUT_DIR=str(shared_tmp / "out"))
    argv = [sys.executable, "-m", "aw_action", "--config", str(cfg), "--prompt", str(prompt)]
    proc = subprocess.Popen(argv, env=env, cwd=user_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        if ending == "signal":
            deadline = time.monotonic() + 60
            while "mcp__docs__hang" not in _session_text(shared_tmp) and time.monotonic() < deadline:
                time.sleep(0.2)
            time.sleep(1.0)  # the call is in flight
            proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=120)
        time.sleep(0.5)
        left = _lingering(token)
        assert not left, f"alive after the run: {left}\n{stderr[-2000:]}"
        assert " child=" in _session_text(shared_tmp), "control: the server started its child"
        events = [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]
        (ended,) = [e for e in events if e.get("event") == "processes"]
        assert ended["left"] == [], ended
        # kill(-1) as the server's own uid, where no other run's process of that uid is about
        assert str(ended.get("secret_holder", "")).startswith(("kill-uid", "best-effort: uid")), ended
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        _kill_lingering(token)
