"""``output-schema`` through the real SDKs against local wire-format servers: Anthropic Messages,
OpenAI Chat Completions and OpenAI Responses. The same three cases on each: valid at the first
answer, valid after one corrective prompt, never valid (``invalid_output``, exit 1). The
corrective path is provider-neutral, so what each server receives is checked too."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from aw_action.harness.invocation import Harness
from aw_action.run.result import RunResult
from aw_action.structured import STRUCTURED_OUTPUT_FILE
from tests.conftest import base_env, write_run_files
from tests.servers import anthropic as ant
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer

KEY = "sk-test-structured-0123456789abcdef"
SCHEMA = {
    "type": "object",
    "properties": {"labels": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
    "required": ["labels"],
}
GOOD = '{"labels": ["bug"]}'
FAST = {"AW_RETRY_BASE_DELAY_MS": "10", "AW_RETRY_JITTER_MS": "0", "AW_RETRY_MAX_ATTEMPTS": "2"}


@dataclass(frozen=True)
class Wire:
    name: str
    model: str
    reply: Callable[[str], Reply]
    env: Callable[[str], dict[str, str]]


WIRES = [
    Wire(
        "anthropic-messages",
        "claude-sonnet-4.6",
        lambda text: ant.stream_reply(text=text, use=ant.usage(50, 10)),
        lambda url: {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url},
    ),
    Wire(
        "openai-chat",
        "gpt-4o",
        lambda text: oai.chat_stream_reply(text=text, model="gpt-4o"),
        lambda url: {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url + "/v1"},
    ),
    Wire(
        "openai-responses",
        "gpt-5",
        lambda text: oai.responses_stream_reply(text=text),
        lambda url: {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url + "/v1"},
    ),
]


async def run(tmp: Path, wire: Wire, answers: list[str]) -> tuple[RunResult, list[str]]:
    """The run's result and each request body as text."""
    config = {"engine": {"id": "aw", "model": wire.model}, "harness": {"output-schema": SCHEMA}}
    c, p = write_run_files(tmp, config, "Label issue 7.")
    with WireServer() as server:
        server.script(*(wire.reply(a) for a in answers))
        env = base_env(tmp, **FAST, **wire.env(server.url))
        result = await Harness(c, p, env, stderr=io.StringIO()).run()
        bodies = [json.dumps(r.json) for r in server.requests]
    return result, bodies


@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.name)
async def test_valid_at_the_first_answer(tmp_path: Path, wire: Wire) -> None:
    result, bodies = await run(tmp_path, wire, [f"Here it is:\n```json\n{GOOD}\n```"])
    assert result.exit_code == 0, result.error
    assert result.to_json()["structured_output"] == {"labels": ["bug"]}
    assert json.loads((tmp_path / "out" / STRUCTURED_OUTPUT_FILE).read_text()) == {"labels": ["bug"]}
    [body] = bodies
    assert "validates against this JSON Schema" in body and "maxItems" in body


@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.name)
async def test_valid_after_a_corrective_prompt(tmp_path: Path, wire: Wire) -> None:
    result, bodies = await run(tmp_path, wire, ['{"labels": ["a", "b", "c"]}', GOOD])
    assert result.exit_code == 0, result.error
    assert result.to_json()["structured_output"] == {"labels": ["bug"]}
    assert len(bodies) == 2
    assert "does not match the output schema" in bodies[1] and "$.labels" in bodies[1]
    assert "does not match" not in bodies[0]


@pytest.mark.parametrize("wire", WIRES, ids=lambda w: w.name)
async def test_never_valid_ends_invalid_output(tmp_path: Path, wire: Wire) -> None:
    result, bodies = await run(tmp_path, wire, ["no", '{"labels": "bug"}', "still no"])
    assert (result.stop_reason, result.exit_code, result.conclusion) == ("invalid_output", 1, "failure")
    assert result.to_json()["structured_output"] is None
    assert len(bodies) == 3 and not (tmp_path / "out" / STRUCTURED_OUTPUT_FILE).exists()
    assert KEY not in json.dumps(result.to_json())
