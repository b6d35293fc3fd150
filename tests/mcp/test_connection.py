"""One connection to a real server on the SDK: what the client declares (no sampling, no
elicitation, the workspace as its only root), a message past the bound, an aborted call, and a
server whose children end with it."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path

import pytest

from aw_action.ai.types import AbortSignal
from aw_action.mcp.client import Connection, McpError, ServerLaunch
from aw_action.mcp.config import McpServer
from aw_action.mcp.results import result_text

SERVER = Path(__file__).with_name("server.py")


def _connection(tmp_path: Path, mode: str = "ok", **extra: object) -> Connection:
    spec = McpServer.model_validate({"command": sys.executable, "args": [str(SERVER), mode], **extra})
    where = ServerLaunch(workspace=tmp_path, env={}, base_env={"PATH": os.environ["PATH"]})
    return Connection("t", spec, where)


async def test_the_client_declares_no_sampling_or_elicitation_and_only_the_workspace_root(tmp_path: Path) -> None:
    connection = _connection(tmp_path)
    await connection.start()
    try:
        answer = json.loads(result_text(await connection.call("client", {}, AbortSignal())))
    finally:
        await connection.close()
    assert "sampling" not in answer["capabilities"] and "elicitation" not in answer["capabilities"]
    assert answer["roots"] == [tmp_path.resolve().as_uri()]


async def test_a_message_past_the_bound_ends_the_connection_not_the_harness(tmp_path: Path) -> None:
    connection = _connection(tmp_path, "chatty")
    await connection.start()
    try:
        with pytest.raises(McpError):
            await asyncio.wait_for(connection.call("huge", {}, AbortSignal()), 60)
        assert "over 8388608 bytes" in connection.stderr.text()
        assert len(connection.stderr.lines) <= 21, "stderr is kept bounded"
    finally:
        await connection.close()


async def test_an_aborted_call_returns_at_once(tmp_path: Path) -> None:
    connection = _connection(tmp_path)
    await connection.start()
    signal = AbortSignal()
    try:
        asyncio.get_running_loop().call_later(0.5, signal.abort, "cancelled")
        started = time.monotonic()
        with pytest.raises(McpError, match="cancelled"):
            await connection.call("sleep", {"seconds": 60}, signal)
        assert time.monotonic() - started < 10
    finally:
        await connection.close()


async def test_close_ends_the_server_process(tmp_path: Path) -> None:
    connection = _connection(tmp_path)
    await connection.start()
    pid = int(result_text(await connection.call("pid", {}, AbortSignal())))
    os.kill(pid, 0)
    await connection.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_a_name_the_servers_env_sets_reaches_it_even_when_it_reads_like_a_credential(tmp_path: Path) -> None:
    """``env: {SERVICE_API_TOKEN: ${MY_SVC}}`` (github-mcp-server's own documented setup sets
    ``GITHUB_PERSONAL_ACCESS_TOKEN``): the spawn backstop drops credential-looking names nobody
    granted, and it used to count only the harness variables a server is given, not the names its
    ``env`` sets, so the server started without them and nothing said so (found by review). A
    credential-looking name the config did not set still does not reach it."""
    env = {"SERVICE_API_TOKEN": "${MY_SVC}", "PLAIN": "${MY_SVC}", "GITHUB_PERSONAL_ACCESS_TOKEN": "${MY_PAT}"}
    spec = McpServer.model_validate({"command": sys.executable, "args": [str(SERVER), "ok"], "env": env})
    harness = {"MY_SVC": "svc-value-123456", "MY_PAT": "pat-value-123456", "OTHER_API_TOKEN": "never-given"}
    base = {"PATH": os.environ["PATH"], "STRAY_SECRET_TOKEN": "not-granted"}
    connection = Connection("t", spec, ServerLaunch(workspace=tmp_path, env=harness, base_env=base))
    await connection.start()
    try:
        seen = {
            name: result_text(await connection.call("env", {"name": name}, AbortSignal()))
            for name in (*env, "OTHER_API_TOKEN", "STRAY_SECRET_TOKEN")
        }
    finally:
        await connection.close()
    assert seen["SERVICE_API_TOKEN"] == seen["PLAIN"] == "svc-value-123456"
    assert seen["GITHUB_PERSONAL_ACCESS_TOKEN"] == "pat-value-123456"
    assert "never-given" not in seen["OTHER_API_TOKEN"] and "not-granted" not in seen["STRAY_SECRET_TOKEN"]
