"""OpenAI Chat Completions (also GitHub Models and other compatible endpoints), via ``openai``.

Body: the system prompt as a ``system`` message, assistant turns with ``tool_calls`` (arguments
as JSON text), tool results as ``tool`` messages; ``stream_options.include_usage`` on streams.
Thinking blocks are not replayed (Chat Completions has no field for them).

Stream: chunks carry text, tool-call fragments keyed by ``index`` and, on some compatible
servers, ``reasoning_content``. A response is complete when a chunk carried ``finish_reason``
and the usage chunk (requested with ``include_usage``) arrived. A body that ends after
``finish_reason`` with no usage chunk (a compatible server that ignores ``include_usage``) is
complete too, with usage estimated at about four characters a token and marked
``raw={"estimated": true}`` so the budget still counts it; a body that ends before
``finish_reason`` is incomplete.
"""

from __future__ import annotations

import json
from typing import Any

from aw_action.ai.catalog import ProviderSpec
from aw_action.ai.message_memo import MessageMemo
from aw_action.ai.sse import END, Decoded, ServerEvent, error_event, json_object
from aw_action.ai.stream_state import StreamState
from aw_action.ai.types import (
    AssistantMessage,
    ProviderRequest,
    StopReason,
    StreamDelta,
    TextContent,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from aw_action.ai.usage import estimate_tokens, from_openai_chat, without_nulls

API = "openai-completions"
FINISH_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "content_filter": "error",
}


HistoryMessage = UserMessage | AssistantMessage | ToolResultMessage


def _entry(m: HistoryMessage) -> dict[str, Any] | None:
    """One message as a Chat Completions message (None: an empty assistant message, left out);
    shared between requests, never changed in place."""
    if isinstance(m, UserMessage):
        return {"role": "user", "content": m.text}
    if isinstance(m, ToolResultMessage):
        return {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text or "(no output)"}
    text = "".join(c.text for c in m.content if isinstance(c, TextContent))
    calls = [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for c in m.tool_calls
    ]
    if not text and not calls:
        return None
    entry: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        entry["tool_calls"] = calls
    return entry


def convert_messages(
    system_prompt: str,
    messages: list[HistoryMessage],
    memo: MessageMemo[HistoryMessage, dict[str, Any] | None] | None = None,
) -> list[dict[str, Any]]:
    """The system prompt and the history as Chat Completions messages; ``memo`` keeps each
    message's form from one request to the next."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    entries = memo.convert(messages) if memo is not None else [_entry(m) for m in messages]
    out += [entry for entry in entries if entry is not None]
    return out


def decode_event(event: ServerEvent) -> Decoded:
    """One event as the openai SDK reads its streams (both APIs): ``data: [DONE]`` ends the body,
    an object with an ``error`` member is an error (a server error mid-stream is transient), any
    other is the API's event object."""
    if event.data.startswith(b"[DONE]"):
        return END
    data = json_object(event.data)
    if data is not None and data.get("error"):
        raise error_event(event.data)
    return data


class ChatWire:
    api = API
    path = "/chat/completions"
    terminal = "finish_reason and usage"

    def __init__(self, max_tokens_field: str | None = None) -> None:
        self.max_tokens_field = max_tokens_field or "max_completion_tokens"
        self._memo: MessageMemo[HistoryMessage, dict[str, Any] | None] = MessageMemo(_entry)

    def body(self, request: ProviderRequest, stream: bool) -> dict[str, Any]:
        opts = request.options
        body: dict[str, Any] = {
            "model": request.model.id,
            "messages": convert_messages(request.system_prompt, request.messages, self._memo),
            "stream": stream,
        }
        if stream:
            body["stream_options"] = {"include_usage": True}
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in request.tools
            ]
        if opts.max_tokens:
            body[self.max_tokens_field] = opts.max_tokens
        if opts.temperature is not None:
            body["temperature"] = opts.temperature
        return body

    def decode(self, event: ServerEvent) -> Decoded:
        return decode_event(event)

    def feed(self, chunk: dict[str, Any], state: StreamState) -> list[StreamDelta]:
        state.message.response_id = state.message.response_id or chunk.get("id")
        state.response_model = state.response_model or chunk.get("model")
        out: list[StreamDelta | None] = []
        usage = chunk.get("usage")
        if usage is not None:
            state.raw_usage = without_nulls(usage)
        for choice in (chunk.get("choices") or [])[:1]:
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                out.append(state.thinking("reasoning", reasoning))
            content = delta.get("content")
            if content:
                out.append(state.text("text", content))
            for call in delta.get("tool_calls") or []:
                key = ("tool", call["index"])
                fn = call.get("function")
                if not state.is_tool(key):
                    state.tool_start(key, call.get("id") or f"call_{call['index']}", (fn or {}).get("name") or "")
                if fn and fn.get("arguments"):
                    out.append(state.tool_args(key, fn["arguments"]))
            if choice.get("finish_reason"):
                self._stop(choice["finish_reason"], state)
        if state.stop_seen and state.raw_usage is not None:
            self._finish(state)
        return [d for d in out if d is not None]

    def end_of_stream(self, state: StreamState, payload: dict[str, Any]) -> None:
        if not state.stop_seen:
            return
        state.message.usage = Usage(
            input=estimate_tokens(json.dumps(payload.get("messages", [])) + json.dumps(payload.get("tools", []))),
            output=estimate_tokens(state.produced_text()),
            raw={"estimated": True},
        )
        state.complete = True

    def whole(self, response: dict[str, Any], state: StreamState) -> None:
        state.message.response_id = response.get("id")
        state.response_model = response.get("model")
        if response.get("usage") is not None:
            state.raw_usage = without_nulls(response["usage"])
        for choice in (response.get("choices") or [])[:1]:
            msg = choice.get("message") or {}
            if msg.get("content"):
                state.text("text", msg["content"])
            for i, call in enumerate(msg.get("tool_calls") or []):
                fn = call.get("function") or {}
                state.tool_start(("tool", i), call.get("id") or f"call_{i}", fn.get("name") or "")
                state.tool_end(("tool", i), fn.get("arguments") or "")
            self._stop(choice.get("finish_reason") or "stop", state)
        self._finish(state)

    @staticmethod
    def _stop(reason: str, state: StreamState) -> None:
        state.stop_seen = True
        state.message.stop_reason = FINISH_REASONS.get(reason, "stop")
        if reason == "content_filter":
            state.message.error_kind = "fatal"
            state.message.error_message = (
                "the response was blocked by the content filter (finish_reason=content_filter)"
            )

    @staticmethod
    def _finish(state: StreamState) -> None:
        state.message.usage = from_openai_chat(state.raw_usage or {})
        state.complete = True


def wire(spec: ProviderSpec) -> ChatWire:
    """This API as ``spec``'s provider speaks it (``registry.APIS``)."""
    return ChatWire(spec.max_tokens_field)
