"""The bench's scripted model: one local server speaking the Anthropic Messages and OpenAI Chat
Completions wire formats (the reply builders of tests/servers), answering both harnesses alike.

A ``Script`` says how many tool turns a run has and which bash command each turn asks for; the
server answers statelessly from the request itself (the number of tool results already in it is
the turn number), so two harnesses that send different bodies still get the same conversation.
Every request is recorded with its arrival time and raw body for the metrics (parsed when a metric
asks: the server keeps no parsed bodies, see ``Seen``), and
every reply with its timing (``ReplyTiming``: when it was written and when its last byte left
the send queue), from which the bench checks that the server held no reply back
(``measure.stall_check``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.servers import anthropic, openai
from tests.servers.wire import ReceivedRequest, Reply, ReplyTiming, WireServer

USAGE_INPUT_TOKENS = 10
"""Reported per request whatever was sent: neither harness compacts, so both send what they keep."""


@dataclass(frozen=True)
class Script:
    tool_turns: int
    command: Callable[[int], str] = lambda turn: "echo ok"
    final_text: str = "done"


@dataclass
class Seen:
    """One request as it arrived. Only its bytes are kept: the parsed bodies of a 400-turn run are
    millions of objects, which made every full collection of the garbage collector in this process
    (the server's) slower as the run went on, and the server's answers later, for whichever
    harness ran while they piled up (the server then held each answer ~7 ms at turn 400)."""

    at: float
    """``time.monotonic()`` when the request arrived."""
    path: str
    body: bytes

    @property
    def data(self) -> dict[str, Any]:
        """The body's JSON, parsed afresh on each call (an empty body: ``{}``)."""
        parsed: dict[str, Any] = json.loads(self.body) if self.body else {}
        return parsed


def tool_results_in(data: dict[str, Any]) -> int:
    """Tool results already in a request: Anthropic ``tool_result`` blocks or OpenAI ``tool`` messages."""
    count = 0
    for message in data.get("messages", []):
        if message.get("role") == "tool":
            count += 1
        content = message.get("content")
        if isinstance(content, list):
            count += sum(1 for block in content if isinstance(block, dict) and block.get("type") == "tool_result")
    return count


@dataclass
class BenchServer:
    wire: str
    """``anthropic`` or ``openai``."""
    script: Script = field(default_factory=lambda: Script(0))
    seen: list[Seen] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server = WireServer(default=self._answer, time_replies=True)

    @property
    def base_url(self) -> str:
        """What the SDKs take: Anthropic's appends /v1/messages, OpenAI's /chat/completions."""
        return self._server.url if self.wire == "anthropic" else f"{self._server.url}/v1"

    def start(self) -> BenchServer:
        self._server.start()
        return self

    def stop(self) -> None:
        self._server.stop()

    def reset(self, script: Script) -> None:
        with self._lock:
            self.script = script
            self.seen = []
        self._server.take_replies()
        self._server.requests.clear()  # the wire server's own list, unused here: it would grow with every run

    def take_replies(self) -> list[ReplyTiming]:
        """Every reply sent since the last ``reset``."""
        return self._server.take_replies()

    def _answer(self, request: ReceivedRequest) -> Reply:
        at = time.monotonic()
        data = json.loads(request.body) if request.body else {}
        with self._lock:
            self.seen.append(Seen(at, request.path, request.body))
            script = self.script
        turn = tool_results_in(data)
        calls = [("bash", {"command": script.command(turn)})] if turn < script.tool_turns else None
        text = f"turn {turn}" if calls else script.final_text
        if self.wire == "anthropic":
            use = anthropic.usage(input=USAGE_INPUT_TOKENS, output=5)
            if data.get("stream"):
                return anthropic.stream_reply(text=text, tool_calls=calls, use=use)
            return anthropic.message_reply(text=text, tool_calls=calls, use=use)
        use = openai.chat_usage(prompt=USAGE_INPUT_TOKENS, completion=5)
        if data.get("stream"):
            return openai.chat_stream_reply(text=text, tool_calls=calls, use=use)
        return openai.chat_reply(text=text, tool_calls=calls, use=use)
