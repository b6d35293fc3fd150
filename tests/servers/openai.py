"""OpenAI wire formats (Chat Completions and Responses): replies for the ``openai`` SDK.

Chat: ``chat_stream_reply`` sends content / tool-call chunks, a ``finish_reason`` chunk, the
usage chunk (``include_usage``) and ``[DONE]``; ``chat_reply`` one JSON completion.
Responses: ``responses_stream_reply`` sends ``response.created`` ... ``response.completed``;
``responses_reply`` one JSON response. ``error_reply`` is an OpenAI error body.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.servers.wire import Reply

_ids = itertools.count(1)


def chat_usage(prompt: int = 10, completion: int = 5, cached: int = 0, reasoning: int = 0) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
    }


def chat_chunks(
    *,
    text: str = "",
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
    use: dict[str, Any] | None = None,
    finish_reason: str | None = None,
    model: str = "gpt-4o-mini",
    terminal: bool = True,
) -> list[str]:
    """SSE ``data:`` records. ``terminal=False`` stops before the finish and usage chunks."""
    cid = f"chatcmpl-test{next(_ids)}"

    def chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> str:
        choices = [] if usage is not None else [{"index": 0, "delta": delta, "finish_reason": finish}]
        data = {"id": cid, "object": "chat.completion.chunk", "created": 1, "model": model, "choices": choices}
        data["usage"] = usage
        return f"data: {json.dumps(data)}"

    out = [chunk({"role": "assistant", "content": ""})]
    for i in range(0, len(text), max(1, len(text) // 3 or 1)):
        out.append(chunk({"content": text[i : i + max(1, len(text) // 3 or 1)]}))
    for index, (name, args) in enumerate(tool_calls or []):
        call_id = f"call_test_{next(_ids)}"
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {"index": index, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
                    ]
                }
            )
        )
        raw = json.dumps(args)
        half = len(raw) // 2
        for piece in (raw[:half], raw[half:]):
            out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    if terminal:
        out.append(chunk({}, finish_reason or ("tool_calls" if tool_calls else "stop")))
        out.append(chunk({}, usage=use or chat_usage()))
        out.append("data: [DONE]")
    return out


def chat_stream_reply(*, drop_after: int | None = None, **kw: Any) -> Reply:
    return Reply.sse(chat_chunks(**kw), headers={"x-request-id": f"req_chat_{next(_ids)}"}, drop_after=drop_after)


def chat_reply(
    *,
    text: str = "",
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
    use: dict[str, Any] | None = None,
    model: str = "gpt-4o-mini",
) -> Reply:
    calls = [
        {"id": f"call_test_{next(_ids)}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for n, a in tool_calls or []
    ]
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = calls
    body = {
        "id": f"chatcmpl-test{next(_ids)}",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": use or chat_usage(),
    }
    return Reply.json_body(body, headers={"x-request-id": f"req_chat_{next(_ids)}"})


def responses_usage(
    input: int = 10, output: int = 5, cached: int = 0, reasoning: int = 0, cache_write: int | None = None
) -> dict[str, Any]:
    """``input`` includes ``cached`` and ``cache_write``; ``output`` includes ``reasoning``."""
    details: dict[str, int] = {"cached_tokens": cached}
    if cache_write is not None:
        details["cache_write_tokens"] = cache_write
    return {
        "input_tokens": input,
        "input_tokens_details": details,
        "output_tokens": output,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": input + output,
    }


def _response(rid: str, model: str, status: str, output: list[Any], use: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "created_at": 1,
        "status": status,
        "model": model,
        "output": output,
        "usage": use,
        "error": None,
        "incomplete_details": None,
        "tools": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
    }


def responses_events(
    *,
    text: str = "",
    tool_calls: list[tuple[str, dict[str, Any]]] | None = None,
    reasoning: tuple[str, str] | None = None,
    use: dict[str, Any] | None = None,
    model: str = "gpt-5",
    terminal: bool = True,
    incomplete: bool = False,
) -> list[str]:
    """SSE records; ``reasoning`` is ``(summary, encrypted_content)``; ``incomplete`` ends with
    ``response.incomplete`` (reason ``max_output_tokens``), as when the answer was cut."""
    rid = f"resp_test{next(_ids)}"

    def ev(kind: str, **data: Any) -> str:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}"

    out = [ev("response.created", response=_response(rid, model, "in_progress", [], None))]
    items: list[dict[str, Any]] = []
    if reasoning is not None:
        item = {
            "type": "reasoning",
            "id": f"rs_{next(_ids)}",
            "summary": [{"type": "summary_text", "text": reasoning[0]}],
            "encrypted_content": reasoning[1],
        }
        idx = len(items)
        out.append(ev("response.output_item.added", output_index=idx, item={**item, "summary": []}))
        out.append(
            ev(
                "response.reasoning_summary_text.delta",
                output_index=idx,
                item_id=item["id"],
                summary_index=0,
                delta=reasoning[0],
            )
        )
        out.append(ev("response.output_item.done", output_index=idx, item=item))
        items.append(item)
    if text:
        mid = f"msg_{next(_ids)}"
        idx = len(items)
        out.append(
            ev(
                "response.output_item.added",
                output_index=idx,
                item={"type": "message", "id": mid, "role": "assistant", "status": "in_progress", "content": []},
            )
        )
        out.append(ev("response.output_text.delta", output_index=idx, item_id=mid, content_index=0, delta=text))
        item = {
            "type": "message",
            "id": mid,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
        out.append(ev("response.output_item.done", output_index=idx, item=item))
        items.append(item)
    for name, args in tool_calls or []:
        fid, call_id, idx = f"fc_{next(_ids)}", f"call_{next(_ids)}", len(items)
        raw = json.dumps(args)
        item = {
            "type": "function_call",
            "id": fid,
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
        out.append(ev("response.output_item.added", output_index=idx, item=item))
        out.append(ev("response.function_call_arguments.delta", output_index=idx, item_id=fid, delta=raw))
        out.append(ev("response.function_call_arguments.done", output_index=idx, item_id=fid, arguments=raw))
        done = {**item, "arguments": raw, "status": "completed"}
        out.append(ev("response.output_item.done", output_index=idx, item=done))
        items.append(done)
    if terminal and incomplete:
        response = _response(rid, model, "incomplete", items, use or responses_usage())
        response["incomplete_details"] = {"reason": "max_output_tokens"}
        out.append(ev("response.incomplete", response=response))
    elif terminal:
        out.append(
            ev("response.completed", response=_response(rid, model, "completed", items, use or responses_usage()))
        )
    return out


def responses_stream_reply(*, drop_after: int | None = None, **kw: Any) -> Reply:
    return Reply.sse(responses_events(**kw), headers={"x-request-id": f"req_resp_{next(_ids)}"}, drop_after=drop_after)


def responses_reply(*, text: str = "", use: dict[str, Any] | None = None, model: str = "gpt-5") -> Reply:
    output = [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }
    ]
    return Reply.json_body(_response(f"resp_test{next(_ids)}", model, "completed", output, use or responses_usage()))


def error_reply(status: int, text: str, code: str | None = None, headers: dict[str, str] | None = None) -> Reply:
    body = {
        "error": {
            "message": text,
            "type": "invalid_request_error" if status < 500 else "server_error",
            "code": code,
            "param": None,
        }
    }
    return Reply.json_body(body, status=status, headers=headers)
