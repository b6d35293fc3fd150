"""A complete reply's connection is kept for the next request (``sdk_provider.keep_connection``):
the rest of the body after the terminal event (the chunked body's end, Chat Completions'
``[DONE]``) is read before the response is closed, so the HTTP client hands the connection back
to its pool. Before, every turn opened a new connection (against the API, a new TLS handshake):
a 20-turn bench run used 20 connections where Pi used one. A body that goes on past the message
is not waited for: the message is complete, and the next request opens a new connection."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from aw_action.ai.sdk_provider import KEEP_ALIVE_DRAIN_S, SdkProvider
from tests.ai.conftest import anthropic_provider, collect, openai_provider, request
from tests.servers import anthropic as anthropic_wire
from tests.servers import openai as openai_wire
from tests.servers.wire import Reply, WireServer

WIRES: dict[str, tuple[Callable[[WireServer], SdkProvider], Callable[[], Reply], str]] = {
    "anthropic": (anthropic_provider, lambda: anthropic_wire.stream_reply(text="hi"), "sonnet"),
    "openai chat": (openai_provider, lambda: openai_wire.chat_stream_reply(text="hi"), "openai/gpt-4o-mini"),
    "openai responses": (openai_provider, lambda: openai_wire.responses_stream_reply(text="hi"), "openai/gpt-5"),
}


@pytest.mark.parametrize("wire", WIRES)
async def test_consecutive_requests_share_one_connection(server: WireServer, wire: str) -> None:
    make_provider, reply, model = WIRES[wire]
    provider = make_provider(server)
    server.script(reply(), reply(), reply())
    for _ in range(3):
        _, message = await collect(provider, request(model))
        assert message.stop_reason == "stop" and message.text == "hi"
    assert len(server.requests) == 3
    assert len({r.connection for r in server.requests}) == 1


async def test_a_body_that_goes_on_after_the_message_is_let_go_and_the_next_request_reconnects(
    server: WireServer,
) -> None:
    provider = anthropic_provider(server)
    endless = anthropic_wire.stream_reply(text="hi")
    trailing = replace(
        endless,
        chunks=[*endless.chunks, b": still here\n\n"],
        stall_after=len(endless.chunks),
        stall_s=KEEP_ALIVE_DRAIN_S * 8,
    )
    server.script(trailing, anthropic_wire.stream_reply(text="again"))
    _, first = await collect(provider, request("sonnet"))
    assert first.stop_reason == "stop" and first.text == "hi"
    _, second = await collect(provider, request("sonnet"))
    assert second.text == "again"
    first_connection, second_connection = (r.connection for r in server.requests)
    assert first_connection != second_connection
