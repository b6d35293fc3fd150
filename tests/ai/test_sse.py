"""The harness's own reading of a streamed reply (``ai/sse.py``): SSE framing as the specification
says, bounded lines and events, and the real SDKs over a local server with their own stream
decoders out of the way (the reply is read without them; Bedrock's AWS event stream still uses
its SDK's)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from aw_action.ai import sse
from aw_action.ai.errors import ProviderError
from aw_action.ai.sse import ServerEvent, read_events
from aw_action.ai.types import StreamDelta
from tests.ai.conftest import RecordingHooks, anthropic_provider, collect, openai_provider, request
from tests.servers import anthropic as ant
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer


async def _chunks(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


async def _events(parts: list[bytes], **limits: int) -> list[ServerEvent]:
    return [e async for e in read_events(_chunks(parts), **limits)]


BODY = (
    b": keep-alive comment\n"
    b"event: message_start\n"
    b'data: {"a": 1}\n'
    b"\n"
    b"id: 7\nretry: 100\nunknown: field\n"
    b"data: first line\n"
    b"data:second line\n"
    b"\n"
    b"event: ping\n"
    b"\n"
    b"\n\n"
)
EXPECTED = [
    ServerEvent("message_start", b'{"a": 1}'),
    ServerEvent(None, b"first line\nsecond line"),
    ServerEvent("ping", b""),
]


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
async def test_every_split_of_the_body_gives_the_same_events_whatever_the_line_ending(ending: bytes) -> None:
    body = BODY.replace(b"\n", ending)
    assert await _events([body]) == EXPECTED
    for cut in range(1, len(body)):  # a CRLF split between two chunks is still one line end
        assert await _events([body[:cut], body[cut:]]) == EXPECTED, cut
    assert await _events([body[i : i + 1] for i in range(len(body))]) == EXPECTED


async def test_an_event_the_body_ends_inside_is_not_dispatched() -> None:
    assert await _events([b"event: x\ndata: {}"]) == []
    assert await _events([b"event: x\ndata: {}\n"]) == []
    assert await _events([b"data: 1\n\ndata: 2\n"]) == [ServerEvent(None, b"1")]
    assert await _events([b""]) == []


async def test_a_terminal_event_cut_before_its_blank_line_is_retried(server: WireServer) -> None:
    events = ant.stream_events(text="whole")
    cut = Reply.sse(events[:-1])
    cut.chunks.append(events[-1].encode())  # message_stop, its blank line never sent
    server.script(cut, ant.stream_reply(text="again"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "again" and len(server.requests) == 2 and "message_stop" in hooks.retries[0][3]


async def test_a_line_or_an_event_over_its_bound_ends_the_attempt_as_fatal() -> None:
    with pytest.raises(ProviderError) as line:
        await _events([b"data: " + b"x" * 50, b"x" * 50], max_line=64)
    assert line.value.info.kind == "fatal" and "a line" in line.value.info.message
    with pytest.raises(ProviderError) as long_line:  # a complete line, in one chunk
        await _events([b"data: " + b"x" * 100 + b"\n\n"], max_line=64)
    assert long_line.value.info.kind == "fatal"
    with pytest.raises(ProviderError) as event:
        await _events([b"data: 0123456789\n" * 10], max_line=64, max_event=64)
    assert event.value.info.kind == "fatal" and "an event" in event.value.info.message
    assert await _events([b"data: 0123456789\n" * 3 + b"\n"], max_line=64, max_event=64)


def _unusable_sdk_decoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDKs' own SSE decoders and typed stream objects fail if anything uses them."""
    import anthropic._streaming
    import openai._streaming

    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("the SDK's stream decoder was used")

    for module in (anthropic._streaming, openai._streaming):
        monkeypatch.setattr(module.SSEDecoder, "aiter_bytes", refuse)
        monkeypatch.setattr(module.AsyncStream, "__stream__", refuse)


async def test_the_anthropic_reply_is_read_without_the_sdks_decoder(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unusable_sdk_decoders(monkeypatch)
    unknown = 'event: brand_new_event\ndata: {"type": "brand_new_event", "x": 1}'
    events = ant.stream_events(text="Hello there", tool_calls=[("bash", {"command": "ls"})])
    server.script(Reply.sse([events[0], unknown, ": comment", *events[1:]]))
    deltas, msg = await collect(anthropic_provider(server), request("sonnet"))
    assert msg.stop_reason == "toolUse" and msg.text == "Hello there"
    assert msg.tool_calls[0].arguments == {"command": "ls"}
    assert msg.usage.input == 10 and msg.usage.raw == ant.usage()
    assert "".join(d.delta for d in deltas if isinstance(d, StreamDelta) and d.kind == "text") == "Hello there"


async def test_the_openai_replies_are_read_without_the_sdks_decoder(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    _unusable_sdk_decoders(monkeypatch)
    server.script(
        oai.chat_stream_reply(text="chat", tool_calls=[("bash", {"command": "pwd"})]),
        oai.responses_stream_reply(text="responses", tool_calls=[("bash", {"command": "id"})]),
    )
    provider = openai_provider(server)
    _, chat = await collect(provider, request("gpt-4o"))
    _, responses = await collect(provider, request("gpt-5"))
    assert (chat.text, chat.tool_calls[0].arguments, chat.stop_reason) == ("chat", {"command": "pwd"}, "toolUse")
    assert (responses.text, responses.tool_calls[0].arguments) == ("responses", {"command": "id"})


async def test_an_anthropic_error_event_without_json_is_still_classified(server: WireServer) -> None:
    events = ant.stream_events(text="half")
    server.script(Reply.sse([*events[:3], "event: error\ndata: overloaded, try later"]), ant.stream_reply(text="ok"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "ok" and "overloaded, try later" in hooks.retries[0][3]


async def test_an_event_that_is_not_json_fails_the_attempt_as_fatal(server: WireServer) -> None:
    events = ant.stream_events(text="half")
    server.script(Reply.sse([*events[:3], "event: content_block_delta\ndata: {not json"]))
    _, msg = await collect(anthropic_provider(server), request("sonnet"))
    assert msg.stop_reason == "error" and msg.error_kind == "fatal" and "not JSON" in (msg.error_message or "")
    assert len(server.requests) == 1


async def test_an_oversized_line_from_the_server_fails_the_attempt(
    server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sse, "MAX_LINE_BYTES", 4096)
    events = ant.stream_events(text="x" * 5000)
    big = f"event: content_block_delta\ndata: {json.dumps({'type': 'content_block_delta', 'index': 0})}"
    server.script(Reply.sse([*events[:3], big + " " * 5000]))
    _, msg = await collect(anthropic_provider(server), request("sonnet"))
    assert msg.error_kind == "fatal" and "a line longer than 4096 bytes" in (msg.error_message or "")
    assert len(server.requests) == 1


async def test_chat_done_marker_ends_the_body_but_not_before_completion(server: WireServer) -> None:
    chunks = oai.chat_chunks(text="half")
    server.script(Reply.sse([*chunks[:2], "data: [DONE]"]), oai.chat_stream_reply(text="whole"))
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)
    assert msg.text == "whole" and len(server.requests) == 2 and "finish_reason" in hooks.retries[0][3]
