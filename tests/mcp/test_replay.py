"""A replay of a run that called MCP tools plays the recorded results back and says so: no
server is started (its program is gone by then) and the replay is the same as the recording."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tests.conftest import base_env, run_cli, write_run_files
from tests.replay.rig import lines, make_workspace, replay

SERVER = Path(__file__).with_name("server.py")


def test_a_replay_plays_recorded_mcp_results_back_without_a_server(tmp_path: Path) -> None:
    program = tmp_path / "server-copy.py"
    shutil.copy(SERVER, program)
    workspace = make_workspace(tmp_path / "ws")
    turns = [
        {"text": "Asking the server.", "tool_calls": [{"name": "mcp__docs__echo", "arguments": {"text": "recorded"}}]},
        {"text": "Failing.", "tool_calls": [{"name": "mcp__docs__fail", "arguments": {}}]},
        {"text": "Done."},
    ]
    config = {
        "engine": {"id": "aw", "model": "faux/scripted"},
        "mcp-servers": {"docs": {"command": sys.executable, "args": [str(program), "ok"]}},
    }
    cfg, prompt = write_run_files(tmp_path, config, "Ask.", turns)
    run = run_cli(
        ["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"], base_env(tmp_path), cwd=workspace
    )
    assert run.returncode == 0, run.stderr[-2000:]
    program.unlink()  # a replay that started the server would fail now

    replayed = replay(tmp_path, tmp_path / "out")
    assert replayed.report["replay"] == "same", replayed.run.stderr[-3000:]
    assert '"event": "replay_mcp_playback"' in replayed.run.stderr
    results = [
        e["message"]
        for e in lines(tmp_path / "replay-out" / "session.jsonl")
        if e.get("type") == "message" and e["message"].get("role") == "toolResult"
    ]
    assert [r["tool_name"] for r in results] == ["mcp__docs__echo", "mcp__docs__fail"]
    assert results[0]["details"]["mcp_server"] == "docs" and "recorded" in results[0]["content"][0]["text"]
    assert results[1]["is_error"]
    assert shutil.which(str(program)) is None
