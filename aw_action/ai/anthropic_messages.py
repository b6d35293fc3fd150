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
from aw_action.ai.sse import Decoded, ServerEvent, error_event, json_object
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
from aw_action.ai.usage import from_anthropic, merge_anthropic, without_nulls

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

    def decode(self, event: ServerEvent) -> Decoded:
        """As the anthropic SDK reads its stream: ``ping`` and unnamed events skipped, ``error``
        raised (``overloaded_error`` is transient)."""
        if event.name is None or event.name == "ping":
            return None
        if event.name == "error":
            raise error_event(event.data)
        return json_object(event.data)

    def feed(self, event: dict[str, Any], state: StreamState) -> list[StreamDelta]:
        kind = event.get("type")
        out: list[StreamDelta | None] = []
        if kind == "content_block_delta":
            d = event["delta"]
            dtype = d.get("type")
            index = event["index"]
            if dtype == "text_delta":
                out.append(state.text(index, d["text"]))
            elif dtype == "input_json_delta":
                if state.is_tool(index):
                    out.append(state.tool_args(index, d["partial_json"]))
            elif dtype == "thinking_delta":
                out.append(state.thinking(index, d["thinking"]))
            elif dtype == "signature_delta":
                state.thinking(index, signature=d["signature"])
        elif kind == "message_start":
            message = event["message"]
            state.message.response_id = message["id"]
            state.response_model = message["model"]
            state.raw_usage = without_nulls(message.get("usage"))
        elif kind == "content_block_start":
            out.append(self._block(event["index"], event["content_block"], state))
        elif kind == "content_block_stop":
            if state.is_tool(event["index"]):
                state.tool_end(event["index"])
        elif kind == "message_delta":
            state.raw_usage = merge_anthropic(state.raw_usage or {}, without_nulls(event.get("usage")))
            self._stop((event.get("delta") or {}).get("stop_reason"), state)
        elif kind == "message_stop":
            self._finish(state)
        return [d for d in out if d is not None]

    def end_of_stream(self, state: StreamState, payload: dict[str, Any]) -> None:
        """Without the terminal event a response is never complete."""

    def whole(self, response: dict[str, Any], state: StreamState) -> None:
        state.message.response_id = response["id"]
        state.response_model = response["model"]
        state.raw_usage = without_nulls(response.get("usage"))
        for index, block in enumerate(response.get("content") or []):
            self._block(index, block, state)
            if block.get("type") == "tool_use":
                state.tool_end(index, json.dumps(block.get("input") or {}))
        self._stop(response.get("stop_reason"), state)
        self._finish(state)

    @staticmethod
    def _block(index: int, block: dict[str, Any], state: StreamState) -> StreamDelta | None:
        kind = block.get("type")
        if kind == "text":
            return state.text(index, block.get("text") or "")
        if kind == "thinking":
            return state.thinking(index, block.get("thinking") or "", signature=block.get("signature") or None)
        if kind == "redacted_thinking":
            return state.thinking(index, "", signature=block["data"], redacted=True)
        if kind == "tool_use":
            state.tool_start(index, block["id"], block["name"])
            if block.get("input"):
                state.tool_end(index, json.dumps(block["input"]))
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
