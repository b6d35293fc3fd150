"""Accumulates one streamed assistant message, whatever the wire format.

Each provider maps its stream events onto these calls, keyed by its own block identifier (the
Anthropic block index, the Chat Completions tool-call index, the Responses output index). The
state answers two questions the provider needs: what is the partial message now (for
``StreamDelta``), and did the terminal event arrive (``complete``); a stream that ends without
it is incomplete and gets discarded and retried.

Cost is linear in the streamed size: deltas are appended to per-block lists and joined once
(at ``finish``, or when a wire reads a block); a ``StreamDelta``'s partial message is built only
if a listener reads it. (Growing a ``str`` by ``+=`` while a snapshot held a reference to it
copied the whole text on every delta: a 100 MB answer took minutes.)
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from typing import Any, Literal

from aw_action.ai.types import AssistantMessage, StreamDelta, TextContent, ThinkingContent, ToolCall

Key = Hashable


def parse_arguments(text: str) -> tuple[dict[str, object], str | None]:
    """Tool arguments as an object; ``(empty, raw text)`` when the text is not a JSON object."""
    if not text.strip():
        return {}, None
    try:
        parsed = json.loads(text)
    except (json.JSONDecodeError, RecursionError):  # nested too deeply counts as malformed too
        return {}, text
    return (parsed, None) if isinstance(parsed, dict) else ({}, text)


class StreamState:
    """One attempt's message under construction. ``complete`` is set by the terminal event."""

    def __init__(self, base: AssistantMessage) -> None:
        self.message = base
        self.complete = False
        self.stop_seen = False
        """A stop reason arrived (Chat Completions still waits for the usage chunk after it)."""
        self.response_model: str | None = None
        """The model id the API reported (often a dated snapshot); used for the price lookup."""
        self.raw_usage: dict[str, Any] | None = None
        """The provider's usage object as last reported; normalised once at the terminal event."""
        self._index: dict[Key, int] = {}
        self._parts: dict[int, list[str]] = {}
        """Text/thinking deltas not yet folded into their block (content index -> pieces)."""
        self._size: dict[int, int] = {}
        """Characters of each text/thinking block including its pending pieces."""
        self._args: dict[int, list[str]] = {}

    def _fold(self, index: int) -> None:
        """Join a block's pending pieces into the block (once per read, not once per delta)."""
        parts = self._parts.get(index)
        if not parts:
            return
        block = self.message.content[index]
        if isinstance(block, TextContent):
            block.text += "".join(parts)
        elif isinstance(block, ThinkingContent):
            block.thinking += "".join(parts)
        parts.clear()

    def _text_at(self, index: int, size: int) -> str:
        block = self.message.content[index]
        whole = block.text if isinstance(block, TextContent) else getattr(block, "thinking", "")
        pending = self._parts.get(index)
        if pending:
            whole += "".join(pending)
        return whole[:size]

    def snapshot(self) -> AssistantMessage:
        """A copy of the message so far; later deltas do not change it (O(size): for ``start``)."""
        return self._copy(len(self.message.content), dict(self._size))

    def _copy(self, blocks: int, sizes: dict[int, int]) -> AssistantMessage:
        content: list[TextContent | ThinkingContent | ToolCall] = []
        for i, block in enumerate(self.message.content[:blocks]):
            if isinstance(block, TextContent):
                content.append(TextContent(text=self._text_at(i, sizes.get(i, 0))))
            elif isinstance(block, ThinkingContent):
                content.append(block.model_copy(update={"thinking": self._text_at(i, sizes.get(i, 0))}))
            else:
                content.append(block.model_copy())
        return self.message.model_copy(update={"content": content})

    def _delta(self, kind: Literal["text", "thinking", "toolcall"], index: int, text: str) -> StreamDelta:
        """A delta whose partial message (text and thinking exactly as of this delta) is built
        only when read."""
        blocks, sizes = len(self.message.content), dict(self._size)
        return StreamDelta(kind, index, text, lambda: self._copy(blocks, sizes))

    def _block(self, key: Key, block: TextContent | ThinkingContent | ToolCall) -> int:
        if key not in self._index:
            self._index[key] = len(self.message.content)
            self.message.content.append(block)
        return self._index[key]

    def _grow(self, index: int, delta: str) -> None:
        self._parts.setdefault(index, []).append(delta)
        self._size[index] = self._size.get(index, 0) + len(delta)

    def text(self, key: Key, delta: str) -> StreamDelta | None:
        index = self._block(key, TextContent(text=""))
        if not isinstance(self.message.content[index], TextContent) or not delta:
            return None
        self._grow(index, delta)
        return self._delta("text", index, delta)

    def thinking(
        self, key: Key, delta: str = "", signature: str | None = None, redacted: bool = False
    ) -> StreamDelta | None:
        index = self._block(key, ThinkingContent(thinking="", redacted=redacted))
        block = self.message.content[index]
        if not isinstance(block, ThinkingContent):
            return None
        if signature is not None:
            block.signature = (block.signature or "") + signature
        if not delta:
            return None
        self._grow(index, delta)
        return self._delta("thinking", index, delta)

    def tool_start(self, key: Key, call_id: str, name: str) -> None:
        index = self._block(key, ToolCall(id=call_id, name=name))
        self._args.setdefault(index, [])

    def tool_args(self, key: Key, delta: str) -> StreamDelta | None:
        index = self._index.get(key)
        if index is None or not delta:
            return None
        self._args.setdefault(index, []).append(delta)
        return self._delta("toolcall", index, delta)

    def tool_end(self, key: Key, arguments: str | None = None) -> None:
        """Parse the streamed arguments (or ``arguments``, the full text when the API repeats it)."""
        index = self._index.get(key)
        if index is None:
            return
        if arguments is not None:
            self._args[index] = [arguments]
        block = self.message.content[index]
        if isinstance(block, ToolCall):
            block.arguments, block.raw_arguments = parse_arguments("".join(self._args.get(index, [])))

    def block(self, key: Key) -> TextContent | ThinkingContent | ToolCall | None:
        index = self._index.get(key)
        if index is None:
            return None
        self._fold(index)
        return self.message.content[index]

    def is_tool(self, key: Key) -> bool:
        index = self._index.get(key)
        return index is not None and isinstance(self.message.content[index], ToolCall)

    def produced_text(self) -> str:
        """Everything generated so far (text, thinking, raw tool arguments): for usage estimates."""
        for index in list(self._parts):
            self._fold(index)
        parts = [
            c.text if isinstance(c, TextContent) else c.thinking if isinstance(c, ThinkingContent) else c.name
            for c in self.message.content
        ]
        return "".join(parts) + "".join("".join(a) for a in self._args.values())

    def finish(self) -> AssistantMessage:
        """The final message: pieces joined, tool arguments parsed, empty text blocks dropped."""
        for index in list(self._parts):
            self._fold(index)
        for key in list(self._index):
            if self.is_tool(key):
                self.tool_end(key)
        self.message.content = [c for c in self.message.content if not (isinstance(c, TextContent) and not c.text)]
        return self.message
