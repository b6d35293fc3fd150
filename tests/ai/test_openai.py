"""The OpenAI provider through the real ``openai`` SDK: Chat Completions and Responses."""

from __future__ import annotations

import json

from aw_action.ai.types import (
    AssistantMessage,
    StreamStart,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from tests.ai.conftest import KEY, RecordingHooks, collect, openai_provider, request
from tests.servers import openai as wire
from tests.servers.wire import WireServer


async def test_chat_stream_with_tool_call_reasoning_and_cached_tokens(server: WireServer) -> None:
    server.script(
        wire.chat_stream_reply(
            text="Checking.",
            tool_calls=[("bash", {"command": "ls"}), ("bash", {"command": "pwd"})],
            use=wire.chat_usage(prompt=1200, completion=80, cached=1024, reasoning=30),
        )
    )
    hooks = RecordingHooks()
    events, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)

    body = server.requests[0].json
    assert server.requests[0].path == "/v1/chat/completions"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["messages"][0] == {"role": "system", "content": "You are a test."}
    assert body["tools"][0]["function"]["name"] == "bash"
    assert isinstance(events[0], StreamStart)
    assert msg.stop_reason == "toolUse" and msg.text == "Checking."
    assert [c.arguments for c in msg.tool_calls] == [{"command": "ls"}, {"command": "pwd"}]
    assert (msg.usage.input, msg.usage.cache_read, msg.usage.output, msg.usage.reasoning) == (176, 1024, 50, 30)
    assert msg.cost_usd is not None and msg.cost_usd > 0
    assert msg.request_id is not None and msg.request_id.startswith("req_chat_")
    assert msg.response_id is not None and msg.response_id.startswith("chatcmpl-")
    assert hooks.responses[0][0] == 200


async def test_chat_non_streaming(server: WireServer) -> None:
    server.script(wire.chat_reply(text="Hi", tool_calls=[("bash", {"command": "date"})], use=wire.chat_usage(20, 4)))
    _, msg = await collect(openai_provider(server, streaming=False), request("gpt-4o"))
    body = server.requests[0].json
    assert body["stream"] is False and "stream_options" not in body
    assert msg.text == "Hi" and msg.tool_calls[0].arguments == {"command": "date"}
    assert (msg.usage.input, msg.usage.output) == (20, 4)


async def test_chat_history_is_converted(server: WireServer) -> None:
    call = ToolCall(id="call_1", name="bash", arguments={"command": "ls"})
    history = [
        UserMessage.of("hi"),
        AssistantMessage(api="anthropic-messages", content=[ThinkingContent(thinking="t", signature="s"), call]),
        ToolResultMessage(tool_call_id="call_1", tool_name="bash", content=[TextContent(text="a.txt")]),
    ]
    server.script(wire.chat_stream_reply(text="done"))
    await collect(openai_provider(server), request("gpt-4o", history, max_tokens=99))
    body = server.requests[0].json
    assert body["messages"][2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
        ],
    }
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"}
    assert body["max_completion_tokens"] == 99


async def test_github_models_uses_its_output_limit_field(server: WireServer) -> None:
    server.script(wire.chat_stream_reply(text="ok", model="openai/gpt-4.1"))
    provider = openai_provider(server, name="github")  # the catalog's max_tokens field and price provider
    _, msg = await collect(provider, request("github/openai/gpt-4.1", max_tokens=10))
    body = server.requests[0].json
    assert body["model"] == "openai/gpt-4.1" and body["max_tokens"] == 10
    assert msg.provider == "github" and msg.cost_usd is not None


async def test_chat_stream_without_usage_chunk_completes_with_estimated_usage(server: WireServer) -> None:
    chunks = wire.chat_chunks(text="partial answer")
    finish_only = [*chunks[:-3], chunks[-3]]  # finish_reason arrives, the usage chunk never does
    from tests.servers.wire import Reply

    server.script(Reply.sse(finish_only))
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)
    assert msg.stop_reason == "stop" and msg.text == "partial answer" and len(server.requests) == 1
    assert hooks.retries == []
    assert msg.usage.raw == {"estimated": True}
    assert msg.usage.input > 0 and msg.usage.output == -(-len("partial answer") // 4)


async def test_chat_stream_cut_before_finish_reason_is_retried(server: WireServer) -> None:
    chunks = wire.chat_chunks(text="partial")
    no_finish = chunks[:-3]  # neither finish_reason nor usage
    from tests.servers.wire import Reply

    server.script(Reply.sse(no_finish), wire.chat_stream_reply(text="complete"))
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)
    assert msg.text == "complete" and len(server.requests) == 2
    assert len(hooks.retries) == 1 and "finish_reason and usage" in hooks.retries[0][3]


async def test_responses_stream_with_reasoning_and_function_call(server: WireServer) -> None:
    server.script(
        wire.responses_stream_reply(
            reasoning=("Think first.", "ENCRYPTED-1"),
            text="Running.",
            tool_calls=[("bash", {"command": "ls"})],
            use=wire.responses_usage(input=3000, output=200, cached=2048, reasoning=120),
        )
    )
    _, msg = await collect(openai_provider(server), request("gpt-5"))
    body = server.requests[0].json
    assert server.requests[0].path == "/v1/responses"
    assert body["instructions"] == "You are a test." and body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"] and body["prompt_cache_key"] == "sess-1"
    assert body["tools"][0] == {
        "type": "function",
        "name": "bash",
        "description": "Run a shell command",
        "parameters": body["tools"][0]["parameters"],
        "strict": False,
    }
    thinking = msg.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Think first."
    assert msg.text == "Running." and msg.tool_calls[0].arguments == {"command": "ls"}
    assert msg.stop_reason == "toolUse"
    assert (msg.usage.input, msg.usage.cache_read, msg.usage.output, msg.usage.reasoning) == (952, 2048, 80, 120)


async def test_responses_cache_writes_are_not_counted_as_uncached_input(server: WireServer) -> None:
    use = wire.responses_usage(input=5000, output=40, cached=3000, cache_write=1500)
    server.script(wire.responses_stream_reply(text="ok", use=use))
    _, msg = await collect(openai_provider(server), request("gpt-5"))
    u = msg.usage
    assert (u.input, u.cache_read, u.cache_write) == (500, 3000, 1500)
    assert u.total == use["total_tokens"]


async def test_responses_reasoning_items_are_replayed(server: WireServer) -> None:
    server.script(
        wire.responses_stream_reply(reasoning=("Plan.", "ENC-XYZ"), tool_calls=[("bash", {"command": "ls"})]),
        wire.responses_stream_reply(text="done"),
    )
    provider = openai_provider(server)
    _, first = await collect(provider, request("gpt-5"))
    call = first.tool_calls[0]
    result = ToolResultMessage(tool_call_id=call.id, tool_name="bash", content=[TextContent(text="x")])
    _, second = await collect(provider, request("gpt-5", [UserMessage.of("hi"), first, result]))
    items = server.requests[1].json["input"]
    assert items[0] == {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    assert items[1]["type"] == "reasoning" and items[1]["encrypted_content"] == "ENC-XYZ" and "id" not in items[1]
    assert items[2] == {
        "type": "function_call",
        "call_id": call.id,
        "name": "bash",
        "arguments": json.dumps({"command": "ls"}),
    }
    assert items[3] == {"type": "function_call_output", "call_id": call.id, "output": "x"}
    assert second.text == "done" and second.stop_reason == "stop"


async def test_responses_non_streaming(server: WireServer) -> None:
    server.script(wire.responses_reply(text="Paris", use=wire.responses_usage(50, 3)))
    _, msg = await collect(openai_provider(server, streaming=False), request("gpt-5"))
    assert server.requests[0].json["stream"] is False
    assert msg.text == "Paris" and (msg.usage.input, msg.usage.output) == (50, 3)


async def test_responses_failed_event_is_an_error(server: WireServer) -> None:
    from tests.servers.wire import Reply

    failed = (
        'event: response.failed\ndata: {"type": "response.failed", "response": {"id": "r", "object": "response", '
        '"created_at": 1, "status": "failed", "model": "gpt-5", "output": [], "error": {"code": "invalid_prompt", '
        '"message": "bad prompt"}, "tools": [], "parallel_tool_calls": true, "tool_choice": "auto"}}'
    )
    server.script(Reply.sse([failed]))
    _, msg = await collect(openai_provider(server), request("gpt-5"))
    assert msg.stop_reason == "error" and msg.error_kind == "fatal" and "bad prompt" in (msg.error_message or "")
    assert len(server.requests) == 1
