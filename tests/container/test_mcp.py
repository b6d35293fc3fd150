"""The image, run as the runner runs it, with an MCP server from the ``mcp-config`` input: the
examples' glossary server on the image's own Python and SDK, started through the one spawn path as
the tools' user, its tool called by the scripted model and shown in the step summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.container import engine
from tests.container.runner import RunnerHost, run_container

MCP_CONFIG = {"mcpServers": {"glossary": {"command": "python", "args": ["examples/mcp/glossary_server.py"]}}}


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def test_the_action_runs_an_mcp_server_from_its_mcp_config_input(image: str, tmp_path: Path) -> None:
    inputs = {
        "model": "faux/scripted",
        "prompt-file": "examples/mcp/prompt.txt",
        "mcp-config": json.dumps(MCP_CONFIG),
        "upload-artifacts": "false",
    }
    run = run_container(image, RunnerHost.under(tmp_path), inputs, {"AW_FAUX_SCRIPT": "examples/mcp/script.json"})
    assert run.returncode == 0, run.log[-4000:]
    assert run.outputs["conclusion"] == "success"
    assert "MCP glossary: lookup" in run.summary, run.summary[:3000]
    session = run.host.host_path(run.outputs["session-file"]).read_text()
    assert "4 x output" in session and "untrusted-data-" in session
