"""OpenAI Responses API via ``openai``, for the models whose catalog entry says ``openai-responses``.

Body: ``instructions`` (system prompt), ``input`` items (user messages, assistant messages,
``function_call`` and ``function_call_output``), ``store: false``. Reasoning models also ask for
``reasoning.encrypted_content``; each reasoning item is kept in the thinking block's
``signature`` (as JSON, without its server id) and replayed verbatim to this API, as stateless
use requires. ``prompt_cache_key`` is the session id, so requests of one run share a cache.

Stream: ``response.output_item.added`` opens items, text / argument / reasoning-summary deltas
fill them, ``response.output_item.done`` closes them; ``response.completed`` (or
``response.incomplete``) is terminal; ``response.failed`` and ``error`` events are errors.
"""

from __future__ import annotations

import json
from typing import Any

from aw_action.ai.catalog import ProviderSpec
from aw_action.ai.errors import ProviderError, classify_status
from aw_action.ai.openai_chat import decode_event
from aw_action.ai.sse import Decoded, ServerEvent
from aw_action.ai.stream_state import StreamState
from aw_action.ai.types import (
    AssistantMessage,
    ProviderRequest,
    StreamDelta,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from aw_action.ai.usage import from_openai_responses, without_nulls

API = "openai-responses"


def _assistant_items(m: AssistantMessage) -> list[dict[str, Any]]:
    native = m.api == API
    items: list[dict[str, Any]] = []
    for c in m.content:
        if isinstance(c, ThinkingContent) and native and c.signature:
            try:
                item = json.loads(c.signature)
            except json.JSONDecodeError:
                continue
            if isinstance(item, dict) and item.get("type") == "reasoning":
                items.append(item)
        elif isinstance(c, TextContent) and c.text:
            items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": c.text}]})
        elif isinstance(c, ToolCall):
            arguments = json.dumps(c.arguments)
            items.append({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": arguments})
    return items


def convert_input(messages: list[UserMessage | AssistantMessage | ToolResultMessage]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, UserMessage):
            out.append({"role": "user", "content": [{"type": "input_text", "text": m.text}]})
        elif isinstance(m, ToolResultMessage):
            out.append({"type": "function_call_output", "call_id": m.tool_call_id, "output": m.text or "(no output)"})
        else:
            out.extend(_assistant_items(m))
    return out


def _reasoning_signature(item: dict[str, Any]) -> str:
    """The reasoning item as it is replayed: its ``null`` members, server id and status left out."""
    data = without_nulls(item)
    data.pop("id", None)
    data.pop("status", None)
    return json.dumps(data, separators=(",", ":"))


class ResponsesWire:
    api = API
    path = "/responses"
    terminal = "response.completed"

    def body(self, request: ProviderRequest, stream: bool) -> dict[str, Any]:
        opts = request.options
        body: dict[str, Any] = {
            "model": request.model.id,
            "input": convert_input(request.messages),
            "stream": stream,
            "store": False,
        }
        if request.system_prompt:
            body["instructions"] = request.system_prompt
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters,
                    "strict": False,
                }
                for t in request.tools
            ]
        if request.model.reasoning:
            body["include"] = ["reasoning.encrypted_content"]
        if request.session_id and request.purpose == "agent":
            body["prompt_cache_key"] = request.session_id
        if opts.max_tokens:
            body["max_output_tokens"] = opts.max_tokens
        if opts.temperature is not None:
            body["temperature"] = opts.temperature
        return body

    def decode(self, event: ServerEvent) -> Decoded:
        return decode_event(event)

    def feed(self, event: dict[str, Any], state: StreamState) -> list[StreamDelta]:
        kind = event.get("type")
        out: list[StreamDelta | None] = []
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            out.append(state.text(("text", event["output_index"]), event["delta"]))
        elif kind == "response.function_call_arguments.delta":
            out.append(state.tool_args(("item", event["output_index"]), event["delta"]))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            out.append(state.thinking(("item", event["output_index"]), event["delta"]))
        elif kind == "response.created":
            response = event["response"]
            state.message.response_id = response.get("id")
            state.response_model = response.get("model")
        elif kind == "response.output_item.added":
            self._open(event["output_index"], event["item"], state)
        elif kind == "response.function_call_arguments.done":
            state.tool_end(("item", event["output_index"]), event["arguments"])
        elif kind == "response.output_item.done":
            self._close(event["output_index"], event["item"], state)
        elif kind in ("response.completed", "response.incomplete"):
            self._finish(event["response"], state)
        elif kind == "response.failed":
            error = (event.get("response") or {}).get("error")
            text = f"{error.get('code')}: {error.get('message')}" if isinstance(error, dict) else "response.failed"
            raise ProviderError(classify_status(None, text))
        elif kind == "error":
            raise ProviderError(classify_status(None, f"{event.get('code') or 'error'}: {event.get('message')}"))
        return [d for d in out if d is not None]

    def end_of_stream(self, state: StreamState, payload: dict[str, Any]) -> None:
        """Without the terminal event a response is never complete."""

    def whole(self, response: dict[str, Any], state: StreamState) -> None:
        state.message.response_id = response.get("id")
        state.response_model = response.get("model")
        for index, item in enumerate(response.get("output") or []):
            self._open(index, item, state)
            if item.get("type") == "message":
                for part in item.get("content") or []:
                    if part.get("type") == "output_text":
                        state.text(("text", index), part.get("text") or "")
            self._close(index, item, state)
        self._finish(response, state)

    @staticmethod
    def _open(index: int, item: dict[str, Any], state: StreamState) -> None:
        kind = item.get("type")
        if kind == "function_call":
            state.tool_start(("item", index), item["call_id"], item["name"])
        elif kind == "reasoning":
            state.thinking(("item", index))

    @staticmethod
    def _close(index: int, item: dict[str, Any], state: StreamState) -> None:
        key = ("item", index)
        kind = item.get("type")
        if kind == "function_call":
            state.tool_end(key, item.get("arguments") or "")
        elif kind == "reasoning":
            block = state.block(key)
            if isinstance(block, ThinkingContent):
                block.signature = _reasoning_signature(item)
                summary = item.get("summary") or []
                block.thinking = block.thinking or "\n".join(s.get("text") or "" for s in summary)

    @staticmethod
    def _finish(response: dict[str, Any], state: StreamState) -> None:
        usage = without_nulls(response.get("usage"))
        state.raw_usage = usage
        state.message.usage = from_openai_responses(usage)
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        has_calls = any(isinstance(c, ToolCall) for c in state.message.content)
        if reason == "max_output_tokens":
            state.message.stop_reason = "length"
        elif reason == "content_filter":
            state.message.stop_reason = "error"
            state.message.error_kind = "fatal"
            state.message.error_message = "the response was blocked by the content filter (status=incomplete)"
        else:
            state.message.stop_reason = "toolUse" if has_calls else "stop"
        state.complete = True


def wire(spec: ProviderSpec) -> ResponsesWire:
    """This API as ``spec``'s provider speaks it (``registry.APIS``)."""
    return ResponsesWire()
