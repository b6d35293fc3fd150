"""Anthropic Messages API through the ``anthropic`` SDK (async; streaming by default).

Body: ``system`` as one text block, ``tools`` with ``input_schema``, messages converted from the
neutral types (consecutive tool results and user text merge into one user turn; thinking blocks
are replayed verbatim with their signature when they came from this API, dropped otherwise).

Prompt caching: ``cache_control`` breakpoints on the system block, the last tool, and the last
block of the two latest user turns (4, Anthropic's maximum). Each request then writes the cache
at its newest turn and reads the previous request's entry, because everything before that point
is serialised exactly as in the previous request. Housekeeping calls (``purpose`` other than
``agent``, e.g. a compaction summary) mark only their system prompt and last tool: those repeat
from one such call to the next, while their one-off messages would cost a cache write (25 % over
the input price) that nothing ever reads. So every request carries marks.

Stream: ``message_start`` (id, model, usage) ... blocks ... ``message_delta`` (stop reason,
cumulative usage) then ``message_stop``, the terminal event.
"""

from __future__ import annotations

import json
import re
from typing import Any

from aw_action.ai.catalog import ProviderSpec
from aw_action.ai.message_memo import MessageMemo
from aw_action.ai.stream_state import StreamState
from aw_action.ai.types import (
    AssistantMessage,
    ProviderRequest,
    StopReason,
    StreamDelta,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from aw_action.ai.usage import from_anthropic, merge_anthropic

API = "anthropic-messages"
EPHEMERAL = {"type": "ephemeral"}
STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "toolUse",
    "refusal": "error",
}
HistoryMessage = UserMessage | AssistantMessage | ToolResultMessage
Blocks = tuple[str, list[dict[str, Any]]]
"""A message's role and its content blocks."""
_ID_CHARS = re.compile(r"[^a-zA-Z0-9_-]")


def tool_id(raw: str) -> str:
    """Anthropic accepts ``^[a-zA-Z0-9_-]+$`` ids; ids from other APIs are made to fit."""
    return _ID_CHARS.sub("_", raw)[:64] or "tool"


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    native = message.api == API
    blocks: list[dict[str, Any]] = []
    for c in message.content:
        if isinstance(c, TextContent) and c.text:
            blocks.append({"type": "text", "text": c.text})
        elif isinstance(c, ThinkingContent) and native and c.signature:
            if c.redacted:
                blocks.append({"type": "redacted_thinking", "data": c.signature})
            else:
                blocks.append({"type": "thinking", "thinking": c.thinking, "signature": c.signature})
        elif isinstance(c, ToolCall):
            blocks.append({"type": "tool_use", "id": tool_id(c.id), "name": c.name, "input": c.arguments})
    return blocks


def _message_blocks(m: HistoryMessage) -> Blocks:
    """One message's role and content blocks (shared between requests: never changed in place)."""
    if isinstance(m, AssistantMessage):
        return "assistant", _assistant_blocks(m)
    if isinstance(m, ToolResultMessage):
        text = m.text or ("(error)" if m.is_error else "(no output)")
        block = {
            "type": "tool_result",
            "tool_use_id": tool_id(m.tool_call_id),
            "content": [{"type": "text", "text": text}],
            "is_error": m.is_error,
        }
        return "user", [block]
    return "user", [{"type": "text", "text": c.text} for c in m.content if c.text]


def convert_messages(
    messages: list[UserMessage | AssistantMessage | ToolResultMessage],
    memo: MessageMemo[HistoryMessage, Blocks] | None = None,
) -> list[dict[str, Any]]:
    """The history as Anthropic messages (consecutive same-role messages merged); ``memo`` keeps
    each message's blocks from one request to the next."""
    converted = memo.convert(messages) if memo is not None else [_message_blocks(m) for m in messages]
    out: list[dict[str, Any]] = []
    for role, blocks in converted:
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": list(blocks)})
    return out


def add_cache_breakpoints(body: dict[str, Any], *, messages: bool = True) -> None:
    """Mark the stable prefix: system, last tool, and (``messages``) the last block of the two
    latest user turns."""
    if body.get("system"):
        body["system"][-1]["cache_control"] = dict(EPHEMERAL)
    if body.get("tools"):
        body["tools"][-1]["cache_control"] = dict(EPHEMERAL)
    if not messages:
        return
    user_turns = [m for m in body["messages"] if m["role"] == "user"]
    for turn in user_turns[-2:]:  # a copy of the block: the blocks are shared between requests
        turn["content"][-1] = {**turn["content"][-1], "cache_control": dict(EPHEMERAL)}


class AnthropicWire:
    api = API
    path = "/v1/messages"
    terminal = "message_stop"

    def __init__(self) -> None:
        self._memo: MessageMemo[HistoryMessage, Blocks] = MessageMemo(_message_blocks)

    def body(self, request: ProviderRequest, stream: bool) -> dict[str, Any]:
        opts = request.options
        body: dict[str, Any] = {
            "model": request.model.id,
            "max_tokens": opts.max_tokens or request.model.max_output_tokens,
            "messages": convert_messages(request.messages, self._memo),
            "stream": stream,
        }
        if request.system_prompt:
            body["system"] = [{"type": "text", "text": request.system_prompt}]
        if request.tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in request.tools
            ]
        if opts.temperature is not None:
            body["temperature"] = opts.temperature
        if "user_id" in opts.metadata:
            body["metadata"] = {"user_id": opts.metadata["user_id"]}
        add_cache_breakpoints(body, messages=request.purpose == "agent")
        return body

    def types(self, sdk: Any) -> tuple[Any, Any]:
        from anthropic.types import Message, RawMessageStreamEvent

        return Message, sdk.AsyncStream[RawMessageStreamEvent]

    def feed(self, event: Any, state: StreamState) -> list[StreamDelta]:
        kind = event.type
        out: list[StreamDelta | None] = []
        if kind == "message_start":
            state.message.response_id = event.message.id
            state.response_model = event.message.model
            state.raw_usage = event.message.usage.model_dump(mode="json", exclude_none=True)
        elif kind == "content_block_start":
            out.append(self._block(event.index, event.content_block, state))
        elif kind == "content_block_delta":
            d = event.delta
            if d.type == "text_delta":
                out.append(state.text(event.index, d.text))
            elif d.type == "thinking_delta":
                out.append(state.thinking(event.index, d.thinking))
            elif d.type == "signature_delta":
                state.thinking(event.index, signature=d.signature)
            elif d.type == "input_json_delta" and state.is_tool(event.index):
                out.append(state.tool_args(event.index, d.partial_json))
        elif kind == "content_block_stop":
            if state.is_tool(event.index):
                state.tool_end(event.index)
        elif kind == "message_delta":
            delta_usage = event.usage.model_dump(mode="json", exclude_none=True)
            state.raw_usage = merge_anthropic(state.raw_usage or {}, delta_usage)
            self._stop(event.delta.stop_reason, state)
        elif kind == "message_stop":
            self._finish(state)
        return [d for d in out if d is not None]

    def end_of_stream(self, state: StreamState, payload: dict[str, Any]) -> None:
        """Without the terminal event a response is never complete."""

    def whole(self, response: Any, state: StreamState) -> None:
        state.message.response_id = response.id
        state.response_model = response.model
        state.raw_usage = response.usage.model_dump(mode="json", exclude_none=True)
        for index, block in enumerate(response.content):
            self._block(index, block, state)
            if block.type == "tool_use":
                state.tool_end(index, json.dumps(block.input))
        self._stop(response.stop_reason, state)
        self._finish(state)

    @staticmethod
    def _block(index: int, block: Any, state: StreamState) -> StreamDelta | None:
        if block.type == "text":
            return state.text(index, block.text)
        if block.type == "thinking":
            return state.thinking(index, block.thinking, signature=block.signature or None)
        if block.type == "redacted_thinking":
            return state.thinking(index, "", signature=block.data, redacted=True)
        if block.type == "tool_use":
            state.tool_start(index, block.id, block.name)
            if block.input:
                state.tool_end(index, json.dumps(block.input))
        return None  # server tool blocks and results are the API's business, not the loop's

    @staticmethod
    def _stop(reason: str | None, state: StreamState) -> None:
        if reason is None:
            return
        state.message.stop_reason = STOP_REASONS.get(reason, "stop")
        if reason == "refusal":
            state.message.error_kind = "fatal"
            state.message.error_message = "the model declined to answer (stop_reason=refusal)"

    @staticmethod
    def _finish(state: StreamState) -> None:
        state.message.usage = from_anthropic(state.raw_usage or {})
        state.complete = True


def wire(spec: ProviderSpec) -> AnthropicWire:
    """The Messages API as any provider of the anthropic SDK speaks it (``registry.APIS``)."""
    return AnthropicWire()
