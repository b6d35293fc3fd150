"""Whole runs through the CLI with the scripted provider calling MCP tools of real servers on
the SDK (stdio and streamable HTTP): the tools reach the model under their ``mcp__`` names, the
results come back fenced and redacted, every failure of a server is a tool error or exit 2, and
records say the server's name."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.mcp.names import tool_name
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


def test_server_failures_end_as_tool_errors_and_the_run_goes_on(tmp_path: Path) -> None:
    """Hanging mid-call (tool-timeout), an error result, a flood (cut), a crash mid-call, and a
    call after the crash: each a tool error or a bounded result; the run completes."""
    script = [
        {"tool_calls": [{"name": "mcp__svc__sleep", "arguments": {"seconds": 30}}]},
        {"tool_calls": [{"name": "mcp__svc__fail", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__svc__flood", "arguments": {"size": 3_000_000}}]},
        {"tool_calls": [{"name": "mcp__svc__image", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__svc__crash", "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__svc__echo", "arguments": {"text": "after"}}]},
        {"text": "done"},
    ]
    started = time.monotonic()
    run = _run(tmp_path, {"svc": _stdio(**{"tool-timeout": 2})}, script)
    assert run.returncode == 0, run.stderr[-3000:]
    assert time.monotonic() - started < 60
    hang, fail, flood, image, crash, after = _results(run.output_dir)
    assert hang["is_error"] and "no answer within 2 s (tool-timeout)" in _text(hang)
    assert fail["is_error"] and "reported an error" in _text(fail)
    assert not flood["is_error"] and "[MCP result cut:" in _text(flood) and len(_text(flood)) < 60_000
    assert "[image image/png, 2.0KB: not shown]" in _text(image) and "caption" in _text(image)
    assert crash["is_error"] and "crash failed" in _text(crash)
    assert after["is_error"] and "echo failed" in _text(after)  # not connected, or its connection closed


def test_a_required_server_that_does_not_start_is_exit_2_with_its_stderr(tmp_path: Path) -> None:
    run = _run(tmp_path, {"db": _stdio("crash-start", required=True)}, [{"text": "never"}])
    assert run.returncode == 2, run.stderr[-2000:]
    assert "mcp-servers.db: MCP server db did not start" in run.stderr
    assert "FATAL: cannot reach the database at db:5432" in run.stderr


def test_a_failed_servers_stderr_is_redacted_and_a_missing_variable_is_named(tmp_path: Path) -> None:
    servers = {"db": _stdio("leak-start", required=True, **{"env-vars": ["DOCS_TOKEN", "NOT_SET_ANYWHERE"]})}
    run = _run(tmp_path, servers, [{"text": "never"}], DOCS_TOKEN="docs-secret-value-424242")
    assert run.returncode == 2, run.stderr[-2000:]
    assert "cannot log in with token" in run.stderr
    assert "docs-secret-value-424242" not in run.stderr + run.stdout
    assert "(not set in the environment: NOT_SET_ANYWHERE)" in run.stderr


def test_an_optional_server_that_does_not_start_is_a_warning_and_the_run_goes_on(tmp_path: Path) -> None:
    script = [{"tool_calls": [{"name": "mcp__ok__echo", "arguments": {"text": "still here"}}]}, {"text": "done"}]
    run = _run(tmp_path, {"db": _stdio("crash-start"), "ok": _stdio()}, script)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "MCP server db did not start" in run.stderr and "the run goes on without its tools" in run.stderr
    assert "still here" in _text(_results(run.output_dir)[0])


def test_a_slow_first_start_within_the_startup_timeout_works_and_past_it_is_named(tmp_path: Path) -> None:
    slow = _stdio("slow-start", env={"MCP_TEST_DELAY": "3"})
    script = [{"tool_calls": [{"name": "mcp__slow__echo", "arguments": {"text": "late but fine"}}]}, {"text": "ok"}]
    run = _run(tmp_path / "a", {"slow": slow}, script) if (tmp_path / "a").mkdir() is None else None
    assert run is not None and run.returncode == 0, run.stderr[-2000:] if run else ""
    assert "late but fine" in _text(_results(run.output_dir)[0])
    (tmp_path / "b").mkdir()
    run = _run(tmp_path / "b", {"slow": {**slow, "startup-timeout": 1, "required": True}}, [{"text": "never"}])
    assert run.returncode == 2 and "did not start within 1 s (startup-timeout)" in run.stderr


def test_hostile_names_and_huge_tool_lists_are_made_valid_and_capped(tmp_path: Path) -> None:
    weird, long = tool_name("bad", "weird name/with:chars"), tool_name("bad", "a" * 200)
    script = [
        {"tool_calls": [{"name": weird, "arguments": {}}, {"name": long, "arguments": {}}]},
        {"tool_calls": [{"name": "mcp__many__tool_0000", "arguments": {}}]},
        {"text": "done"},
    ]
    run = _run(tmp_path, {"bad": _stdio("hostile"), "many": _stdio("many", env={"MCP_TEST_TOOLS": "300"})}, script)
    assert run.returncode == 0, run.stderr[-2000:]
    left = re.search(r"MCP server many: (\d+) of its (\d+) tools left out", run.stderr)
    assert left is not None and int(left[2]) - int(left[1]) == 64 and int(left[2]) > 300, run.stderr[-2000:]
    results = _results(run.output_dir)
    assert [r["tool_name"] for r in results] == [weird, long, "mcp__many__tool_0000"]
    assert not any(r["is_error"] for r in results), [_text(r) for r in results]


def test_two_tools_whose_names_collide_are_exit_2_naming_both(tmp_path: Path) -> None:
    """A server cannot take another tool's name by spelling it as the harness would: ``weird
    name`` becomes ``mcp__c__weird_name_<hash>``, and a tool literally named so is refused."""
    run = _run(tmp_path, {"c": _stdio("collide")}, [{"text": "never"}])
    assert run.returncode == 2, run.stderr[-2000:]
    assert "is both c/weird name and c/weird_name_" in run.stderr


def _serve(transport: str, path: str) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "ok", transport, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[str]:
    yield from _serve("http", "/mcp")


@pytest.fixture
def sse_server(tmp_path: Path) -> Iterator[str]:
    """A real legacy HTTP+SSE server on the SDK (GET /sse, POST /messages/)."""
    yield from _serve("sse", "/sse")


def test_a_legacy_http_sse_url_is_refused_naming_the_server_and_the_transport(tmp_path: Path, sse_server: str) -> None:
    run = _run(tmp_path, {"old": {"url": sse_server, "required": True}}, [{"text": "never"}])
    assert run.returncode == 2, run.stderr[-3000:]
    line = next(line for line in run.stderr.splitlines() if "mcp-servers.old" in line)
    assert "legacy HTTP+SSE endpoint" in line and "streamable HTTP endpoint" in line, line
    run = _run(tmp_path, {"other": {"url": sse_server.removesuffix("/sse") + "/nothing"}}, [{"text": "done"}])
    assert run.returncode == 0, run.stderr[-3000:]
    assert "MCP server other did not start" in run.stderr and "legacy" not in run.stderr, "a plain 404 is not SSE"


def test_a_streamable_http_server_tool_is_called_with_its_bearer_token(tmp_path: Path, http_server: str) -> None:
    script = [{"tool_calls": [{"name": "mcp__remote__echo", "arguments": {"text": "over http"}}]}, {"text": "done"}]
    run = _run(
        tmp_path,
        {"remote": {"url": http_server, "bearer-token-env-var": "REMOTE_MCP_TOKEN"}},
        script,
        REMOTE_MCP_TOKEN="remote-token-abcdef",
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "over http" in _text(_results(run.output_dir)[0])
