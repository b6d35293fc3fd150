"""The request body on the wire: what the provider sends, byte for byte, through each SDK.

The anthropic and openai transports hand their SDK the body already encoded (``raw_body``), so
the SDK does not walk and copy it again; what reaches the server must be exactly what the SDK
would have sent itself: compact JSON, UTF-8 left unescaped, as ``application/json``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from aw_action.ai.catalog import resolve_model
from aw_action.ai.sdk_provider import SdkProvider, encode_body
from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from tests.ai.conftest import RecordingHooks, anthropic_provider, collect, openai_provider, request
from tests.servers import anthropic as anthropic_wire
from tests.servers import openai as openai_wire
from tests.servers.wire import Reply, WireServer

TEXT = 'Grüße, 世界 ✓ "quoted" \\ back\nslash \u2028 and \U0001f600'

CASES: dict[str, tuple[str, Callable[[WireServer], SdkProvider], Callable[[], Reply]]] = {
    "anthropic": ("sonnet", anthropic_provider, lambda: anthropic_wire.stream_reply(text="ok")),
    "openai-chat": ("gpt-4o", openai_provider, lambda: openai_wire.chat_stream_reply(text="ok")),
    "openai-responses": ("gpt-5", openai_provider, lambda: openai_wire.responses_stream_reply(text="ok")),
}


def sdk_encoding(data: Any) -> bytes:
    """How both SDKs encode a JSON body (their ``openapi_dumps``)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


@pytest.mark.parametrize("case", CASES)
async def test_the_body_is_sent_as_the_sdk_encodes_it(server: WireServer, case: str) -> None:
    model, provider, reply = CASES[case]
    call = ToolCall(id="call_1", name="bash", arguments={"command": f"echo '{TEXT}'"})
    result = ToolResultMessage(tool_call_id="call_1", tool_name="bash", content=[TextContent(text=TEXT)])
    history: list[Any] = [UserMessage.of(TEXT), _assistant(model, call), result]
    server.script(reply())
    hooks = RecordingHooks()
    _, message = await collect(provider(server), request(model, history, system=TEXT), hooks)

    assert message.error_message is None
    sent = server.requests[0]
    assert sent.body == sdk_encoding(hooks.sent[0])
    assert json.dumps(TEXT, ensure_ascii=False)[1:-1].encode() in sent.body  # unescaped UTF-8, as the SDKs send
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["content-length"] == str(len(sent.body))


async def test_a_retry_sends_the_same_body_again(server: WireServer) -> None:
    server.script(anthropic_wire.error_reply(529, "overloaded_error", "busy"), anthropic_wire.stream_reply(text="ok"))
    await collect(anthropic_provider(server), request("sonnet", [UserMessage.of(TEXT)]))

    first, second = server.requests
    assert first.body == second.body and first.json["messages"][0]["content"][0]["text"] == TEXT


def _assistant(model: str, call: ToolCall) -> AssistantMessage:
    resolved = resolve_model(model)
    return AssistantMessage(
        provider=resolved.provider, model=resolved.id, api=resolved.api, content=[call], stop_reason="toolUse"
    )


@pytest.mark.parametrize("case", ["anthropic", "openai-chat"])
async def test_a_growing_history_is_sent_as_a_fresh_conversion_would_send_it(server: WireServer, case: str) -> None:
    """Each message's wire form is kept from one request to the next (``ai/message_memo.py``):
    every request still carries the whole history as converted anew, and the cache marks of one
    request never stay on the blocks of the next."""
    model, provider, reply = CASES[case]
    sdk = provider(server)
    history: list[Any] = [UserMessage.of("start")]
    for turn in range(4):
        server.script(reply())
        await collect(sdk, request(model, list(history)))
        call = ToolCall(id=f"call_{turn}", name="bash", arguments={"command": f"echo {turn}"})
        history.append(_assistant(model, call))
        history.append(ToolResultMessage(tool_call_id=call.id, tool_name="bash", content=[TextContent(text=str(turn))]))
    server.script(reply())
    await collect(sdk, request(model, history))
    fresh = provider(server)
    server.script(reply())
    await collect(fresh, request(model, history))

    *growing, last, anew = server.requests
    assert last.body == anew.body
    for earlier, later in zip(growing, [*growing[1:], last], strict=True):
        old, new = earlier.json["messages"], later.json["messages"]
        assert len(new) > len(old)
    if case == "anthropic":
        marked = [i for i, m in enumerate(last.json["messages"]) if "cache_control" in m["content"][-1]]
        users = [i for i, m in enumerate(last.json["messages"]) if m["role"] == "user"]
        assert marked == users[-2:]


BODIES: list[Any] = [
    {"model": "m", "messages": [{"role": "user", "content": TEXT}], "temperature": 0.7, "n": 2**70, "z": -0.0},
    {"tiny": 1e-05, "huge": 1e22, "nested": [[{"k": None, "b": True}]], "tuple": (1, 2), "text": "NaN or Infinity"},
]


@pytest.mark.parametrize("body", BODIES)
def test_the_fast_encoding_is_the_sdks_json_value(body: Any) -> None:
    """pydantic-core writes the body (``encode_body``): the same JSON value as the SDKs'
    ``json.dumps``, the same bytes but for a small float's spelling."""
    encoded = encode_body(body)
    assert json.loads(encoded) == json.loads(sdk_encoding(body))
    if "tiny" not in body:
        assert encoded == sdk_encoding(body)


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ({"temperature": float("nan")}, ValueError),
        ({"x": [float("inf")]}, ValueError),
        ({"x": object()}, TypeError),
        ({"x": "\ud800"}, UnicodeEncodeError),
    ],
)
def test_what_json_cannot_carry_is_still_refused(body: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        encode_body(body)
