"""A whole run per cloud through the real ``aw-harness`` CLI: a tool call and a final answer over
the cloud's wire, its credentials withheld from the tool and redacted from every record, and a
refused credential ending the run as ``credentials_refused`` (exit 2)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.servers import anthropic, bedrock, entra, vertex
from tests.servers import openai as openai_wire
from tests.servers.wire import Reply, WireServer

FAST_RETRY = {"AW_RETRY_BASE_DELAY_MS": "20", "AW_RETRY_JITTER_MS": "0", "AW_RETRY_MAX_ATTEMPTS": "3"}
AZURE_KEY = "azure-openai-KEY-do-not-leak-0123456789"
PROBE = "env; echo tool-ran-here"
"""The agent's command: it prints the tools' whole environment, where no cloud credential may be."""


@dataclass
class Cloud:
    """One cloud's run: its model, its environment and what must appear nowhere."""

    model: str
    env: dict[str, str]
    secrets: list[str]
    withheld: list[str]
    """Variables the tools' environment must not have at all."""
    requests: Callable[[], list[Any]]


def _turns(wire: str) -> list[Reply]:
    if wire == "anthropic":
        return [
            anthropic.stream_reply(
                text="Looking.", tool_calls=[("bash", {"command": PROBE})], use=anthropic.usage(90, 20)
            ),
            anthropic.stream_reply(text="All done.", use=anthropic.usage(150, 10)),
        ]
    if wire == "bedrock":
        return [
            bedrock.stream_reply(
                text="Looking.", tool_calls=[("bash", {"command": PROBE})], use=anthropic.usage(90, 20)
            ),
            bedrock.stream_reply(text="All done.", use=anthropic.usage(150, 10)),
        ]
    return [
        openai_wire.chat_stream_reply(text="Looking.", tool_calls=[("bash", {"command": PROBE})], model="gpt-4o"),
        openai_wire.chat_stream_reply(text="All done.", model="gpt-4o"),
    ]


@contextmanager
def cloud(name: str, tmp: Path, *, refuse: bool = False) -> Iterator[Cloud]:
    if name == "bedrock":
        with bedrock.BedrockServer() as server:
            server.replies.extend(_turns("bedrock"))
            env = {
                "AWS_ACCESS_KEY_ID": bedrock.ACCESS_KEY,
                "AWS_SECRET_ACCESS_KEY": "refused-secret-key-0123456789" if refuse else bedrock.SECRET_KEY,
                "AWS_SESSION_TOKEN": bedrock.SESSION_TOKEN,
                "AWS_REGION": bedrock.REGION,
                "ANTHROPIC_BEDROCK_BASE_URL": server.url,
            }
            secrets = [bedrock.SECRET_KEY, bedrock.SESSION_TOKEN, "refused-secret-key-0123456789"]
            withheld = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"]
            yield Cloud(
                "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0",
                env,
                secrets,
                withheld,
                lambda: server.model_requests,
            )
    elif name == "vertex":
        with vertex.VertexServer(refuse_exchange=refuse) as server:
            server.replies.extend(_turns("anthropic"))
            adc = tmp / "gha-creds-0123456789abcdef.json"
            adc.write_text(json.dumps(server.credentials_file()))
            env = {
                "GOOGLE_APPLICATION_CREDENTIALS": str(adc),
                "CLOUD_ML_REGION": vertex.REGION,
                "GOOGLE_CLOUD_PROJECT": vertex.PROJECT,
                "ANTHROPIC_VERTEX_BASE_URL": f"{server.url}/v1",
                "ACTIONS_ID_TOKEN_REQUEST_URL": f"{server.url}/id-token?api-version=2.0",
                "ACTIONS_ID_TOKEN_REQUEST_TOKEN": vertex.REQUEST_TOKEN,
            }
            secrets = [vertex.REQUEST_TOKEN, vertex.ACCESS_TOKEN, vertex.FEDERATED_TOKEN]
            withheld = ["GOOGLE_APPLICATION_CREDENTIALS", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"]
            yield Cloud("vertex/claude-sonnet-4-5@20250929", env, secrets, withheld, lambda: server.predict_requests)
    elif name == "azure-keyless":
        with entra.EntraServers(tmp / "ca", refuse=refuse) as sign_in, WireServer() as server:
            server.script(*_turns("openai"))
            env = {**sign_in.env(), "AZURE_OPENAI_ENDPOINT": server.url}
            secrets = [entra.REQUEST_TOKEN, entra.ID_TOKEN, entra.ENTRA_TOKEN]
            withheld = ["AZURE_CLIENT_ID", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"]
            yield Cloud("azure/gpt-4o", env, secrets, withheld, lambda: server.requests)
    else:
        with WireServer() as server:
            if refuse:
                server.script(openai_wire.error_reply(401, "Access denied due to invalid subscription key."))
            else:
                server.script(*_turns("openai"))
            env = {"AZURE_OPENAI_ENDPOINT": server.url, "AZURE_OPENAI_API_KEY": AZURE_KEY}
            yield Cloud("azure/team-gpt4o", env, [AZURE_KEY], ["AZURE_OPENAI_API_KEY"], lambda: server.requests)


def run(tmp: Path, c: Cloud) -> CliRun:
    config = {"engine": {"id": "aw", "model": c.model}, "tools": {"bash": ["*"]}}
    cfg, prompt = write_run_files(tmp, config, "Print the environment, then stop.")
    return run_cli(["--config", str(cfg), "--prompt", str(prompt)], base_env(tmp, **c.env, **FAST_RETRY))


def assert_nowhere(run: CliRun, secrets: list[str]) -> None:
    for secret in secrets:
        assert secret not in run.stdout and secret not in run.stderr
        for path in run.output_dir.rglob("*"):
            if path.is_file():
                assert secret not in path.read_text(errors="replace"), f"{secret[:12]}... leaked into {path}"


CLOUDS = ["bedrock", "vertex", "azure", "azure-keyless"]


@pytest.mark.parametrize("name", CLOUDS)
def test_a_run_with_a_tool_call_over_the_clouds_wire(name: str, tmp_path: Path) -> None:
    with cloud(name, tmp_path) as c:
        result = run(tmp_path, c)
        sent = c.requests()
    assert result.returncode == 0, result.stderr
    assert result.result["model"] == c.model and result.result["final_message"] == "All done."
    assert result.result["turns"] == 2 and len(sent) == 2
    tool_output = json.dumps(sent[1].json)
    assert "tool-ran-here" in tool_output, "the tool ran and its output went back to the model"
    for variable in c.withheld:
        assert f"{variable}=" not in tool_output, f"{variable} reached the tools"
    assert_nowhere(result, c.secrets)
    usage = [json.loads(line) for line in (result.output_dir / "token-usage.jsonl").read_text().splitlines()]
    assert len(usage) == 2 and all(u["input_tokens"] > 0 for u in usage)


@pytest.mark.parametrize("name", CLOUDS)
def test_a_refused_credential_ends_as_credentials_refused(name: str, tmp_path: Path) -> None:
    with cloud(name, tmp_path, refuse=True) as c:
        result = run(tmp_path, c)
    assert result.returncode == 2, result.stderr
    assert result.result["stop_reason"] == "credentials_refused"
    assert "refused the credential" in result.stderr
    assert_nowhere(result, c.secrets)
