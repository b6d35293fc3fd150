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
