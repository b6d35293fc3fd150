"""Whole runs through the CLI with the scripted provider calling MCP tools of real servers on
the SDK (stdio and streamable HTTP): the tools reach the model under their ``mcp__`` names, the
results come back fenced and redacted, every failure of a server is a tool error or exit 2, and
records say the server's name."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import base_env, run_cli, write_run_files

SERVER = Path(__file__).with_name("server.py")


def _stdio(mode: str = "ok", **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVER), mode], **extra}


def _run(tmp: Path, servers: dict[str, Any], script: list[dict[str, Any]], timeout: float = 90, **env: str) -> Any:
    config = {"engine": {"model": "faux/scripted"}, "mcp-servers": servers}
    cfg, prompt = write_run_files(tmp, config, script=script)
    return run_cli(["--config", str(cfg), "--prompt", str(prompt)], base_env(tmp, **env), timeout=timeout)


def _results(out: Path) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in (out / "session.jsonl").read_text().splitlines() if line.strip()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"].get("role") == "toolResult"]


def _text(message: dict[str, Any]) -> str:
    return "".join(block.get("text", "") for block in message.get("content", []))


def test_a_stdio_server_tool_is_called_and_its_result_fenced_and_redacted(tmp_path: Path) -> None:
    script = [
        {"tool_calls": [{"name": "mcp__docs__echo", "arguments": {"text": "hello from the model"}}]},
        {"tool_calls": [{"name": "mcp__docs__env", "arguments": {"name": "DOCS_TOKEN"}}]},
        {"tool_calls": [{"name": "mcp__docs__env", "arguments": {"name": "ANTHROPIC_API_KEY"}}]},
        {"text": "done"},
    ]
    run = _run(
        tmp_path,
        {"docs": _stdio(**{"env-vars": ["DOCS_TOKEN"]})},
        script,
        DOCS_TOKEN="docs-secret-value-123456",
        ANTHROPIC_API_KEY="sk-ant-should-never-reach-the-server-000",
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = _results(run.output_dir)
    assert [r["tool_name"] for r in results] == ["mcp__docs__echo", "mcp__docs__env", "mcp__docs__env"]
    echo, token, key = (_text(r) for r in results)
    assert "hello from the model" in echo and "<untrusted-data-" in echo and "mcp:docs/echo" in echo
    assert "docs-secret-value-123456" not in token, "a granted secret the server echoes is redacted"
    assert "(unset)" in key, "the harness's model key never reaches a server"
    records = (run.output_dir / "session.jsonl").read_text() + run.stderr
    assert "docs-secret-value-123456" not in records
    assert "runs as the agent's user" in run.stderr
