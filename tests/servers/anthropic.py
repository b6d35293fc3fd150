"""Anthropic Messages wire format: replies a local server sends to the ``anthropic`` SDK.

``stream_reply`` builds a ``message_start`` ... ``message_stop`` SSE stream with text, thinking
and tool_use blocks (tool input streamed as ``input_json_delta`` fragments) and the usage you
set; ``message_reply`` the same message as one JSON body; ``error_reply`` an API error.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.servers.wire import Reply

_ids = itertools.count(1)


def usage(input: int = 10, output: int = 5, cache_read: int = 0, cache_write: int = 0) -> dict[str, int]:
    return {
        "input_tokens": input,
        "output_tokens": output,
        "cache_read_input_tokens": cache_read,
        "cache_creation_input_tokens": cache_write,
    }


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}"


def _pieces(text: str, n: int = 3) -> list[str]:
    size = max(1, len(text) // n)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def stream_events(
    *,
    text: str = "",
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
    thinking: tuple[str, str] | None = None,
    use: dict[str, int] | None = None,
    stop_reason: str | None = None,
    model: str = "claude-sonnet-4-6",
    msg_id: str | None = None,
    terminal: bool = True,
) -> list[str]:
    """SSE records of one message. ``thinking`` is ``(text, signature)``; ``terminal=False``
    leaves out ``message_stop`` (a body that ends early)."""
    use = use or usage()
    calls = tool_calls or []
    msg_id = msg_id or f"msg_test_{next(_ids)}"
    start_usage = {**use, "output_tokens": 1}
    events = [
        _event(
            "message_start",
            {
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                }
            },
        ),
        'event: ping\ndata: {"type": "ping"}',
    ]
    index = 0
    if thinking is not None:
        events.append(
            _event(
                "content_block_start",
                {"index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            )
        )
        for piece in _pieces(thinking[0]):
            events.append(
                _event("content_block_delta", {"index": index, "delta": {"type": "thinking_delta", "thinking": piece}})
            )
        events.append(
            _event(
                "content_block_delta", {"index": index, "delta": {"type": "signature_delta", "signature": thinking[1]}}
            )
        )
        events.append(_event("content_block_stop", {"index": index}))
        index += 1
    if text:
        events.append(_event("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}}))
        for piece in _pieces(text):
            events.append(
                _event("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": piece}})
            )
        events.append(_event("content_block_stop", {"index": index}))
        index += 1
    for name, args in calls:
        block = {"type": "tool_use", "id": f"toolu_test_{next(_ids)}", "name": name, "input": {}}
        events.append(_event("content_block_start", {"index": index, "content_block": block}))
        for piece in _pieces(json.dumps(args)):
            events.append(
                _event(
                    "content_block_delta",
                    {"index": index, "delta": {"type": "input_json_delta", "partial_json": piece}},
                )
            )
        events.append(_event("content_block_stop", {"index": index}))
        index += 1
    reason = stop_reason or ("tool_use" if calls else "end_turn")
    events.append(_event("message_delta", {"delta": {"stop_reason": reason, "stop_sequence": None}, "usage": use}))
    if terminal:
        events.append(_event("message_stop", {}))
    return events


def stream_reply(*, drop_after: int | None = None, headers: dict[str, str] | None = None, **kw: Any) -> Reply:
    """A streamed message; ``drop_after=n`` closes the socket after n SSE records."""
    hdrs = {"request-id": f"req_test_{next(_ids)}", **(headers or {})}
    return Reply.sse(stream_events(**kw), headers=hdrs, drop_after=drop_after)


def message(
    *,
    text: str = "",
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
    use: dict[str, int] | None = None,
    stop_reason: str | None = None,
    model: str = "claude-sonnet-4-6",
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    for name, args in tool_calls or []:
        content.append({"type": "tool_use", "id": f"toolu_test_{next(_ids)}", "name": name, "input": args})
    return {
        "id": f"msg_test_{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason or ("tool_use" if tool_calls else "end_turn"),
        "stop_sequence": None,
        "usage": use or usage(),
    }


def message_reply(**kw: Any) -> Reply:
    return Reply.json_body(message(**kw), headers={"request-id": f"req_test_{next(_ids)}"})


def error_reply(status: int, kind: str, text: str, headers: dict[str, str] | None = None) -> Reply:
    body = {"type": "error", "error": {"type": kind, "message": text}}
    return Reply.json_body(body, status=status, headers=headers)


def overloaded() -> Reply:
    return error_reply(529, "overloaded_error", "Overloaded")
