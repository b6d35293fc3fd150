"""A model behind the wire-format servers that honours ``max_tokens`` and counts what it is sent.

``CountingModel`` is a ``WireServer`` responder for the Anthropic Messages, OpenAI Chat
Completions and OpenAI Responses formats. For each request it:

- counts the input with its own tokenizer: ``chars_per_token`` characters a token over every
  text the body carries (system prompt, message texts, tool calls' arguments, tool results, tool
  names, descriptions and schemas), plus ``MESSAGE_TOKENS`` per message and, when tools are
  sent, ``TOOLS_PREAMBLE_TOKENS`` (Anthropic documents a tool-use system prompt of that size);
- answers the next planned size (``answers``; a short final text once they run out): text of
  that many tokens and a ``read`` tool call, cut at the request's ``max_tokens`` (the body's
  ``max_tokens`` / ``max_completion_tokens`` / ``max_output_tokens``, else the model's
  maximum) the way the APIs cut it: the text stops there, the tool call is lost, the stop
  reason says so (``max_tokens`` / ``length`` / ``incomplete``), and the output counts exactly
  ``max_tokens``;
- reports that usage (``cached`` of the input as cache reads, when set) and keeps a log
  (``served``) of what each request asked for and was charged.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.servers import anthropic, openai
from tests.servers.wire import ReceivedRequest, Reply

Wire = Literal["anthropic", "chat", "responses"]
MESSAGE_TOKENS = 3
TOOLS_PREAMBLE_TOKENS = 346


@dataclass(frozen=True)
class Served:
    max_tokens: int | None
    input_tokens: int
    output_tokens: int
    cut: bool


@dataclass
class CountingModel:
    wire: Wire
    answers: list[int]
    """Planned output tokens of each answer, in order; each answer asks for one more tool call."""
    model_max_tokens: int = 32_000
    chars_per_token: float = 4.0
    cached: float = 0.0
    """The share of the input reported as read from a cache (0 to 1)."""
    tool_call: tuple[str, dict[str, Any]] = ("read", {"path": "notes.txt"})
    served: list[Served] = field(default_factory=list)

    def __call__(self, request: ReceivedRequest) -> Reply:
        body = request.json
        limit = body.get("max_tokens") or body.get("max_completion_tokens") or body.get("max_output_tokens")
        input_tokens = self.count(body)
        planned = self.answers.pop(0) if self.answers else None
        wanted = planned if planned is not None else 12
        cap = limit if limit is not None else self.model_max_tokens
        cut = wanted > cap
        output = min(wanted, cap)
        calls = [self.tool_call] if planned is not None and not cut else []
        text_tokens = output if cut or not calls else max(1, output - self._call_tokens())
        text = "w" * math.floor(text_tokens * self.chars_per_token)  # counts the same when sent back
        self.served.append(Served(limit, input_tokens, output, cut))
        return self._reply(text, calls, input_tokens, output, cut)

    # ---- counting ----------------------------------------------------------------------------

    def count(self, body: dict[str, Any]) -> int:
        texts: list[str] = []
        messages = body.get("messages") or body.get("input") or []
        system = body.get("system") or body.get("instructions") or ""
        texts.extend(_strings(system))
        for message in messages:
            texts.extend(_strings(message.get("content", "")))
            texts.extend(_strings(message.get("output", "")))  # a Responses function_call_output
            texts.extend(_strings(message.get("arguments", "")))  # a Responses function_call
            for call in message.get("tool_calls") or []:  # Chat: an assistant's calls
                texts.append(call["function"]["name"] + call["function"]["arguments"])
        tools = body.get("tools") or []
        for tool in tools:
            spec = tool.get("function", tool)
            schema = spec.get("input_schema") or spec.get("parameters") or {}
            texts.append(spec.get("name", "") + spec.get("description", "") + json.dumps(schema))
        chars = sum(len(t) for t in texts)
        preamble = TOOLS_PREAMBLE_TOKENS if tools else 0
        return math.ceil(chars / self.chars_per_token) + MESSAGE_TOKENS * len(messages) + preamble

    def _call_tokens(self) -> int:
        name, args = self.tool_call
        return math.ceil(len(name + json.dumps(args)) / self.chars_per_token)

    # ---- replies -----------------------------------------------------------------------------

    def _reply(self, text: str, calls: list[tuple[str, dict[str, Any]]], inp: int, out: int, cut: bool) -> Reply:
        cached = int(inp * self.cached)
        if self.wire == "anthropic":
            use = anthropic.usage(input=inp - cached, output=out, cache_read=cached)
            stop = "max_tokens" if cut else None
            return anthropic.stream_reply(text=text, tool_calls=calls, use=use, stop_reason=stop)
        if self.wire == "chat":
            use = openai.chat_usage(prompt=inp, completion=out, cached=cached)
            finish = "length" if cut else None
            return openai.chat_stream_reply(text=text, tool_calls=calls, use=use, finish_reason=finish)
        use = openai.responses_usage(input=inp, output=out, cached=cached)
        events = openai.responses_events(text=text, tool_calls=calls, use=use, incomplete=cut)
        return Reply.sse(events)


def _strings(value: Any) -> Iterable[str]:
    """Every text a content value carries: strings, and the text-like fields of blocks."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for key in ("text", "thinking", "output", "arguments", "name"):
            if isinstance(value.get(key), str):
                yield value[key]
        if "input" in value and value.get("type") == "tool_use":
            yield json.dumps(value["input"])
        if "content" in value:
            yield from _strings(value["content"])
