"""Replay of every recorded interaction in /work/shared/reference/cassettes through the real SDKs.

The local server answers with the recorded response; the payload hook swaps our body for the
recorded request body, so the recorded request goes over the wire unchanged. Expected tool
calls, text and usage are read from the recorded response in this file, with a parser of its
own (not the provider's), and compared with what the provider produced.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest
from genai_prices.data_snapshot import get_snapshot
from genai_prices.types import TieredPrices

from aw_action.ai.types import AssistantMessage, Model, ProviderRequest, StreamOptions, UserMessage
from tests.ai.conftest import RecordingHooks, anthropic_provider, collect, openai_provider
from tests.servers.cassettes import Interaction, all_interactions
from tests.servers.wire import WireServer

INTERACTIONS = all_interactions()
SUPPORTED = [i for i in INTERACTIONS if i.api is not None]


@dataclass
class Expected:
    text: str = ""
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    """(id, name, arguments)"""
    usage: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    """(input uncached, cache_read, cache_write, output excl. reasoning, reasoning)"""
    stop: str = ""
    raw: dict[str, Any] = field(default_factory=dict)
    """The recorded usage object, as the API sent it."""
    model: str = ""
    """The model id the API reported."""


def _data(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            out.append(json.loads(line[5:]))
    return out


def _anthropic(i: Interaction) -> Expected:
    exp = Expected()
    if i.is_sse:
        blocks: dict[int, dict[str, Any]] = {}
        usage: dict[str, Any] = {}
        for d in _data(i.text):
            if d["type"] == "message_start":
                usage.update(d["message"]["usage"])
                exp.model = d["message"]["model"]
            elif d["type"] == "content_block_start" and d["content_block"]["type"] == "tool_use":
                blocks[d["index"]] = {**d["content_block"], "json": ""}
            elif d["type"] == "content_block_delta" and d["delta"]["type"] == "text_delta":
                exp.text += d["delta"]["text"]
            elif (
                d["type"] == "content_block_delta" and d["delta"]["type"] == "input_json_delta" and d["index"] in blocks
            ):
                blocks[d["index"]]["json"] += d["delta"]["partial_json"]
            elif d["type"] == "message_delta":
                usage.update({k: v for k, v in d["usage"].items() if v is not None})
                exp.stop = d["delta"]["stop_reason"]
        exp.calls = [(b["id"], b["name"], json.loads(b["json"] or "{}")) for _, b in sorted(blocks.items())]
    else:
        body = json.loads(i.text)
        usage = body["usage"]
        exp.model = body["model"]
        exp.text = "".join(b["text"] for b in body["content"] if b["type"] == "text")
        exp.calls = [(b["id"], b["name"], b["input"]) for b in body["content"] if b["type"] == "tool_use"]
        exp.stop = body["stop_reason"]
    exp.usage = (
        usage["input_tokens"],
        usage.get("cache_read_input_tokens") or 0,
        usage.get("cache_creation_input_tokens") or 0,
        usage["output_tokens"],
        0,
    )
    exp.stop = {"tool_use": "toolUse", "end_turn": "stop", "max_tokens": "length"}[exp.stop]
    exp.raw = usage
    return exp


def _openai_chat(i: Interaction) -> Expected:
    exp = Expected()
    calls: dict[int, dict[str, str]] = {}
    usage: dict[str, Any] = {}
    for d in _data(i.text):
        exp.model = exp.model or d["model"]
        if d.get("usage"):
            usage = d["usage"]
        for choice in d["choices"]:
            delta = choice["delta"]
            exp.text += delta.get("content") or ""
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(tc["index"], {"id": "", "name": "", "args": ""})
                slot["id"] = tc.get("id") or slot["id"]
                slot["name"] = tc.get("function", {}).get("name") or slot["name"]
                slot["args"] += tc.get("function", {}).get("arguments") or ""
            exp.stop = choice.get("finish_reason") or exp.stop
    exp.calls = [(c["id"], c["name"], json.loads(c["args"])) for _, c in sorted(calls.items())]
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    reasoning = usage["completion_tokens_details"]["reasoning_tokens"]
    exp.usage = (usage["prompt_tokens"] - cached, cached, 0, usage["completion_tokens"] - reasoning, reasoning)
    exp.stop = {"tool_calls": "toolUse", "stop": "stop"}[exp.stop]
    exp.raw = usage
    return exp


def _openai_responses(i: Interaction) -> Expected:
    exp = Expected()
    completed = next(d for d in _data(i.text) if d["type"] == "response.completed")["response"]
    for item in completed["output"]:
        if item["type"] == "function_call":
            exp.calls.append((item["call_id"], item["name"], json.loads(item["arguments"])))
        elif item["type"] == "message":
            exp.text += "".join(p["text"] for p in item["content"] if p["type"] == "output_text")
    usage = completed["usage"]
    cached = usage["input_tokens_details"]["cached_tokens"]
    reasoning = usage["output_tokens_details"]["reasoning_tokens"]
    exp.usage = (usage["input_tokens"] - cached, cached, 0, usage["output_tokens"] - reasoning, reasoning)
    exp.stop = "toolUse" if exp.calls else "stop"
    exp.raw, exp.model = usage, completed["model"]
    return exp


EXPECT = {"anthropic-messages": _anthropic, "openai-completions": _openai_chat, "openai-responses": _openai_responses}


def test_every_cassette_file_is_covered() -> None:
    files = {i.cassette for i in INTERACTIONS}
    assert len(files) == 5 and files == {i.cassette for i in SUPPORTED}
    assert len(SUPPORTED) == len(INTERACTIONS) - 2  # only the two Gemini calls are not ours to replay


def _provider_counts(api: str, raw: dict[str, Any]) -> tuple[int, int, int]:
    """(prompt, completion, total) tokens as each API documents its own usage object.

    Anthropic: ``input_tokens`` excludes cache reads and writes, so the prompt is the sum of the
    three and there is no total field. OpenAI: ``prompt_tokens`` / ``input_tokens`` include
    cached tokens, ``completion_tokens`` / ``output_tokens`` include reasoning, and the API
    reports ``total_tokens`` itself.
    """
    if api == "anthropic-messages":
        prompt = (
            raw["input_tokens"]
            + (raw.get("cache_read_input_tokens") or 0)
            + (raw.get("cache_creation_input_tokens") or 0)
        )
        return prompt, raw["output_tokens"], prompt + raw["output_tokens"]
    if api == "openai-completions":
        return raw["prompt_tokens"], raw["completion_tokens"], raw["total_tokens"]
    return raw["input_tokens"], raw["output_tokens"], raw["total_tokens"]


async def _replay(interaction: Interaction, server: WireServer) -> AssistantMessage:
    server.script(interaction.reply())
    recorded = interaction.request
    hooks = RecordingHooks(replace=lambda _body: copy.deepcopy(recorded))
    api = interaction.api
    assert api is not None
    provider_name = "anthropic" if api == "anthropic-messages" else "openai"
    model = Model(id=recorded["model"], provider=provider_name, api=api)
    req = ProviderRequest(model, "", [UserMessage.of("replay")], [], StreamOptions(), "s")
    provider = anthropic_provider(server) if provider_name == "anthropic" else openai_provider(server)
    _, msg = await collect(provider, req, hooks)
    assert len(server.requests) == 1 and server.requests[0].json == recorded
    return msg


@pytest.mark.parametrize("interaction", SUPPORTED, ids=lambda i: f"{i.cassette.split('.')[0]}#{i.index}")
async def test_cassette_replay(interaction: Interaction, server: WireServer) -> None:
    msg = await _replay(interaction, server)
    api = interaction.api
    assert api is not None
    exp = EXPECT[api](interaction)
    assert msg.error_message is None and msg.stop_reason == exp.stop
    assert [(c.id, c.name, c.arguments) for c in msg.tool_calls] == exp.calls
    assert all(c.raw_arguments is None for c in msg.tool_calls)
    assert msg.text == exp.text
    u = msg.usage
    assert (u.input, u.cache_read, u.cache_write, u.output, u.reasoning) == exp.usage
    # The API's own arithmetic: every prompt and output token lands in exactly one class.
    prompt, completion, total = _provider_counts(api, exp.raw)
    assert u.input + u.cache_read + u.cache_write == prompt
    assert u.output + u.reasoning == completion
    assert u.total == total
    assert u.raw == exp.raw
    assert msg.cost_usd is not None and msg.cost_usd > 0, "every recorded model has a catalog price"
    assert msg.response_id


def _rate(prices: Any, key: str, fallback: str = "input_mtok") -> Decimal:
    """USD per million tokens for one class, from genai-prices' published data (below any tier)."""
    value = getattr(prices, key, None)
    if value is None:
        return _rate(prices, fallback) if key != fallback else Decimal(0)
    return value.base if isinstance(value, TieredPrices) else Decimal(value)


@pytest.mark.parametrize("interaction", SUPPORTED, ids=lambda i: f"{i.cassette.split('.')[0]}#{i.index}")
async def test_cassette_cost_from_published_prices(interaction: Interaction, server: WireServer) -> None:
    """The cost is the recorded tokens of each class times that class's published rate: cached
    tokens at the cache rates, and neither cached nor reasoning tokens billed twice."""
    msg = await _replay(interaction, server)
    api = interaction.api
    assert api is not None
    exp = EXPECT[api](interaction)
    raw = exp.raw
    provider = "anthropic" if api == "anthropic-messages" else "openai"
    _, info = get_snapshot().find_provider_model(exp.model, None, provider, None)
    prices = info.get_prices(datetime.now(UTC))
    if api == "anthropic-messages":
        tokens = {
            "input_mtok": raw["input_tokens"],
            "cache_read_mtok": raw.get("cache_read_input_tokens") or 0,
            "cache_write_mtok": raw.get("cache_creation_input_tokens") or 0,
            "output_mtok": raw["output_tokens"],
        }
    else:
        prompt, completion, _ = _provider_counts(api, raw)
        details = raw.get("prompt_tokens_details") or raw.get("input_tokens_details") or {}
        cached = details.get("cached_tokens") or 0
        tokens = {"input_mtok": prompt - cached, "cache_read_mtok": cached, "output_mtok": completion}
    assert _provider_counts(api, raw)[0] < 200_000, "below every price tier"
    expected = sum(Decimal(n) * _rate(prices, key) for key, n in tokens.items()) / 1_000_000
    assert expected > 0
    assert msg.cost_usd == pytest.approx(float(expected), rel=1e-9)
