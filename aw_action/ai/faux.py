"""The scripted provider (``faux/...``): plays a JSON script of assistant turns.

It powers the no-key demo and deterministic tests. A script is a JSON list of turns (or an object
with a ``turns`` list). Each turn may hold:

- ``text``: assistant text; ``thinking``: a reasoning block;
- ``tool_calls``: ``[{"name", "arguments", "id"?}]`` (``arguments`` may be a string, to play
  malformed JSON);
- ``stop_reason``: overrides the derived one (``toolUse`` when there are tool calls, else ``stop``);
- ``usage``: overrides the estimate (``input``, ``output``, ``cache_read``, ``cache_write``,
  ``reasoning``); otherwise usage is estimated at about four characters a token, like Pi's faux
  provider: input from the whole request, output from the produced content; an answer whose
  output passes the request's ``max_tokens`` is cut there (stop reason ``length``);
- ``error``: ``{"message", "kind"}`` ends the request as an error of that kind;
- ``delay_s``: seconds to wait (abortably) before answering, to simulate a slow model.

When the script runs out the request fails with ``No more faux responses queued``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from aw_action.ai.types import (
    AbortSignal,
    AssistantContent,
    AssistantMessage,
    AssistantStreamEvent,
    ProviderHooks,
    ProviderRequest,
    StreamDelta,
    StreamDone,
    StreamError,
    StreamStart,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from aw_action.ai.usage import estimate_tokens


def load_script(path: Path) -> list[dict[str, Any]]:
    """Read a script file (``examples/demo/script.json`` is one); raises ``OSError`` or
    ``ValueError`` when it cannot be read or is not a script."""
    data = json.loads(path.read_text(encoding="utf-8"))
    turns = data.get("turns") if isinstance(data, dict) else data
    if not isinstance(turns, list) or not all(isinstance(t, dict) for t in turns):
        raise ValueError('a faux script must be a list of turn objects (or {"turns": [...]})')
    return turns


def _request_text(request: ProviderRequest) -> str:
    parts = [request.system_prompt]
    parts += [m.model_dump_json(exclude={"timestamp"}) for m in request.messages]
    parts += [json.dumps(t.parameters) + t.name + t.description for t in request.tools]
    return "".join(parts)


class FauxProvider:
    """Plays ``turns`` first in, first out; ``calls`` counts requests, ``requests`` keeps them."""

    def __init__(self, turns: list[dict[str, Any]], name: str = "faux") -> None:
        self.name = name
        self._turns = list(turns)
        self.calls = 0
        self.requests: list[ProviderRequest] = []

    def append(self, *turns: dict[str, Any]) -> None:
        self._turns.extend(turns)

    async def stream(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal
    ) -> AsyncIterator[AssistantStreamEvent]:
        self.calls += 1
        self.requests.append(request)
        base = AssistantMessage(provider=request.model.provider, model=request.model.id, api="faux")
        base.request_id = f"faux-{self.calls}"
        payload: dict[str, Any] = {"model": request.model.id, "turn": self.calls}
        await hooks.on_payload(payload)
        await hooks.on_response(200, {"content-type": "application/json"})
        if not self._turns:
            yield StreamError(_failed(base, "No more faux responses queued", "fatal"))
            return
        turn = self._turns.pop(0)
        delay = float(turn.get("delay_s", 0))
        if delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(abort.wait(), timeout=delay)
        if abort.aborted:
            yield StreamError(_failed(base, "Request was aborted", "aborted", "aborted"))
            return
        if "error" in turn:
            err = turn["error"]
            yield StreamError(_failed(base, str(err.get("message", "faux error")), err.get("kind", "fatal")))
            return

        partial = base.model_copy(deep=True)
        yield StreamStart(partial=partial.model_copy(deep=True))
        content: list[AssistantContent] = []
        if turn.get("thinking"):
            content.append(ThinkingContent(thinking=str(turn["thinking"]), signature="faux"))
        if turn.get("text"):
            text = str(turn["text"])
            content.append(TextContent(text=text))
            partial.content = list(content)
            yield StreamDelta("text", len(content) - 1, text, partial.model_copy(deep=True))
        for i, call in enumerate(turn.get("tool_calls", [])):
            args = call.get("arguments", {})
            if isinstance(args, str):
                try:
                    parsed = json.loads(args)
                except json.JSONDecodeError:
                    parsed = None
                tc = ToolCall(
                    id=call.get("id", f"call_{self.calls}_{i}"),
                    name=call["name"],
                    arguments=parsed if isinstance(parsed, dict) else {},
                    raw_arguments=None if isinstance(parsed, dict) else args,
                )
            else:
                tc = ToolCall(id=call.get("id", f"call_{self.calls}_{i}"), name=call["name"], arguments=args)
            content.append(tc)
            partial.content = list(content)
            yield StreamDelta("toolcall", len(content) - 1, json.dumps(args), partial.model_copy(deep=True))

        message = base.model_copy(deep=True)
        message.content = content
        message.stop_reason = turn.get("stop_reason") or ("toolUse" if message.tool_calls else "stop")
        out_text = "".join(c.model_dump_json() for c in content)
        usage = turn.get("usage")
        message.usage = (
            Usage(**usage)
            if isinstance(usage, dict)
            else Usage(input=estimate_tokens(_request_text(request)), output=estimate_tokens(out_text))
        )
        _honour_max_tokens(message, request.options.max_tokens)
        message.cost_usd = 0.0
        yield StreamDone(message)


def _honour_max_tokens(message: AssistantMessage, max_tokens: int | None) -> None:
    """An answer longer than ``max_tokens`` is cut there, as an API cuts it: the output counts
    ``max_tokens``, the text keeps its head (about four characters a token), a tool call that did
    not fit is lost, and the stop reason is ``length``."""
    usage = message.usage
    if max_tokens is None or usage.output + usage.reasoning <= max_tokens:
        return
    reasoning = min(usage.reasoning, max_tokens)
    message.usage = usage.model_copy(update={"reasoning": reasoning, "output": max_tokens - reasoning})
    room = 4 * (max_tokens - reasoning)
    kept: list[AssistantContent] = []
    for block in message.content:
        if isinstance(block, TextContent) and room > 0:
            kept.append(TextContent(text=block.text[:room]))
            room -= len(block.text)
    message.content = kept
    message.stop_reason = "length"


def _failed(base: AssistantMessage, text: str, kind: Any, stop: Any = "error") -> AssistantMessage:
    msg = base.model_copy(deep=True)
    msg.stop_reason = stop
    msg.error_message = text
    msg.error_kind = kind
    return msg
