"""The Anthropic provider through the real ``anthropic`` SDK against a local Messages server."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

from aw_action.ai.types import (
    AssistantMessage,
    StreamDelta,
    StreamStart,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.conftest import KEY, RecordingHooks, anthropic_provider, collect, request
from tests.servers import anthropic as wire
from tests.servers.wire import WireServer


async def test_streamed_text_and_tool_call_with_cache_usage(server: WireServer) -> None:
    server.script(
        wire.stream_reply(
            text="Listing files.",
            tool_calls=[("bash", {"command": "ls -la"})],
            use=wire.usage(input=12, output=34, cache_read=2048, cache_write=512),
        )
    )
    events, msg = await collect(anthropic_provider(server), request("sonnet"))

    assert isinstance(events[0], StreamStart)
    assert any(isinstance(e, StreamDelta) and e.kind == "toolcall" for e in events)
    assert msg.stop_reason == "toolUse" and msg.error_message is None
    assert msg.text == "Listing files."
    assert [(c.name, c.arguments) for c in msg.tool_calls] == [("bash", {"command": "ls -la"})]
    assert (msg.usage.input, msg.usage.output, msg.usage.cache_read, msg.usage.cache_write) == (12, 34, 2048, 512)
    assert msg.usage.raw is not None and msg.usage.raw["cache_read_input_tokens"] == 2048
    assert msg.cost_usd is not None and msg.cost_usd > 0
    assert msg.response_id is not None and msg.response_id.startswith("msg_test_")
    assert msg.request_id is not None and msg.request_id.startswith("req_test_")
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert KEY in (sent.headers.get("x-api-key"), sent.headers.get("authorization", "").removeprefix("Bearer "))
    assert sent.json["stream"] is True and sent.json["model"] == "claude-sonnet-4-6"


async def test_non_streaming_message(server: WireServer) -> None:
    server.script(wire.message_reply(text="Hello", tool_calls=[("bash", {"command": "pwd"})], use=wire.usage(7, 9)))
    _events, msg = await collect(anthropic_provider(server, streaming=False), request("sonnet"))

    assert server.requests[0].json["stream"] is False
    assert msg.text == "Hello" and msg.tool_calls[0].arguments == {"command": "pwd"}
    assert (msg.usage.input, msg.usage.output) == (7, 9)
    assert msg.stop_reason == "toolUse"


async def test_payload_hook_sees_and_replaces_the_real_body(server: WireServer) -> None:
    def patch(body: dict[str, Any]) -> dict[str, Any]:
        out = copy.deepcopy(body)
        out["max_tokens"] = 77
        out["metadata"] = {"user_id": "hooked"}
        return out

    hooks = RecordingHooks(replace=patch)
    server.script(wire.stream_reply(text="ok"))
    await collect(anthropic_provider(server), request("sonnet"), hooks)

    received = server.requests[0].json
    assert received == hooks.sent[0]
    assert received["max_tokens"] == 77 and received["metadata"] == {"user_id": "hooked"}
    assert hooks.payloads[0]["max_tokens"] == 64000  # the catalog limit, before the hook
    assert hooks.responses[0][0] == 200 and hooks.responses[0][1]["content-type"].startswith("text/event-stream")


async def test_thinking_blocks_are_kept_and_replayed_with_their_signature(server: WireServer) -> None:
    server.script(wire.stream_reply(thinking=("Let me think.", "SIG-abc"), tool_calls=[("bash", {"command": "ls"})]))
    server.script(wire.stream_reply(text="done"))
    provider = anthropic_provider(server)
    _, first = await collect(provider, request("sonnet"))
    thinking = first.content[0]
    assert isinstance(thinking, ThinkingContent)
    assert (thinking.thinking, thinking.signature) == ("Let me think.", "SIG-abc")

    result = ToolResultMessage(tool_call_id=first.tool_calls[0].id, tool_name="bash", content=[TextContent(text="a b")])
    await collect(provider, request("sonnet", [UserMessage.of("hi"), first, result]))
    assistant = server.requests[1].json["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"][0] == {"type": "thinking", "thinking": "Let me think.", "signature": "SIG-abc"}
    assert assistant["content"][1]["type"] == "tool_use"
    tool_result = server.requests[1].json["messages"][2]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["tool_use_id"] == first.tool_calls[0].id


async def test_thinking_from_another_api_is_not_replayed(server: WireServer) -> None:
    foreign = AssistantMessage(
        api="openai-responses",
        content=[ThinkingContent(thinking="x", signature='{"type":"reasoning"}'), TextContent(text="hello")],
    )
    server.script(wire.stream_reply(text="ok"))
    await collect(anthropic_provider(server), request("sonnet", [UserMessage.of("a"), foreign, UserMessage.of("b")]))
    assert server.requests[0].json["messages"][1]["content"] == [{"type": "text", "text": "hello"}]


def _strip_cache(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_cache(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_cache(v) for v in value]
    return value


def _marked(messages: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(i, j) for i, m in enumerate(messages) for j, b in enumerate(m["content"]) if "cache_control" in b]


async def test_cache_breakpoints_extend_the_previous_requests_prefix(server: WireServer) -> None:
    """Each request repeats the previous one byte for byte (cache markers aside) and keeps the
    previous tail marked, so its cache entry is read and the new tail written."""
    for i in range(3):
        server.script(wire.stream_reply(tool_calls=[("bash", {"command": f"echo {i}"})]))
    provider = anthropic_provider(server)
    history: list[Any] = [UserMessage.of("start")]
    for _ in range(3):
        _, msg = await collect(provider, request("sonnet", list(history)))
        call = msg.tool_calls[0]
        history += [msg, ToolResultMessage(tool_call_id=call.id, tool_name="bash", content=[TextContent(text="out")])]

    bodies = [r.json for r in server.requests]
    for body in bodies:
        assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
        assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
        last = body["messages"][-1]
        assert last["role"] == "user" and "cache_control" in last["content"][-1]
        breakpoints = 2 + len(_marked(body["messages"]))
        assert breakpoints <= 4
    for prev, nxt in itertools.pairwise(bodies):
        n = len(prev["messages"])
        assert json.dumps(_strip_cache(nxt["messages"][:n])) == json.dumps(_strip_cache(prev["messages"]))
        assert (prev["system"], prev["tools"]) == (nxt["system"], nxt["tools"])
        tail = (n - 1, len(prev["messages"][-1]["content"]) - 1)
        assert tail in _marked(nxt["messages"]), "the previous request's tail stays a breakpoint"


async def test_housekeeping_requests_mark_only_their_system_prompt_and_tools(server: WireServer) -> None:
    """Every request is cache-marked; a one-off summary's messages are not (a write nobody reads)."""
    server.script(wire.stream_reply(text="summary"), wire.stream_reply(text="summary"))
    provider = anthropic_provider(server)
    await collect(provider, request("sonnet", purpose="compaction", tools=[]))
    await collect(provider, request("sonnet", purpose="compaction"))
    without_tools, with_tools = (r.json for r in server.requests)
    assert without_tools["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert with_tools["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    for body in (without_tools, with_tools):
        assert "cache_control" not in json.dumps(body["messages"])


async def test_stop_reasons_are_mapped(server: WireServer) -> None:
    server.script(wire.stream_reply(text="cut", stop_reason="max_tokens"), wire.stream_reply(stop_reason="refusal"))
    provider = anthropic_provider(server)
    _, length = await collect(provider, request("sonnet"))
    _events, refusal = await collect(provider, request("sonnet"))
    assert length.stop_reason == "length"
    assert (
        refusal.stop_reason == "error" and refusal.error_kind == "fatal" and "refusal" in (refusal.error_message or "")
    )


async def test_tool_ids_from_other_apis_are_made_valid(server: WireServer) -> None:
    foreign = AssistantMessage(api="openai-responses", content=[ToolCall(id="call|fc.1", name="bash", arguments={})])
    result = ToolResultMessage(tool_call_id="call|fc.1", tool_name="bash", content=[TextContent(text="x")])
    server.script(wire.stream_reply(text="ok"))
    await collect(anthropic_provider(server), request("sonnet", [UserMessage.of("a"), foreign, result]))
    messages = server.requests[0].json["messages"]
    assert messages[1]["content"][0]["id"] == "call_fc_1"
    assert messages[2]["content"][0]["tool_use_id"] == "call_fc_1"
