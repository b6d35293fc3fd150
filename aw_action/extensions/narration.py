"""Built-in extension: the readable log (``sinks/readable.py``) from the agent's events.

Active only when the run's JSONL sink is read by people (``JsonlSink.readable``: the action's
step log, the CLI's ``--format pretty``); otherwise it registers nothing and costs nothing.

Order: it loads after observability and listens on ``*`` (handlers for ``*`` run after the
named ones, in load order), so each readable block follows the JSONL record of the same event:
inside the action's ``::group::`` of its turn, which the ``turn_start`` record opens and the
``turn_end`` record closes. It writes nothing on ``turn_end`` for that reason.

Secrets: text is redacted before it is shortened (a secret cut in two would no longer match).

Heartbeat: from the moment a model request is about to be sent until its answer ends, a line
every ``HEARTBEAT_S`` seconds says how long the run has been waiting.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from aw_action.agent.events import (
    AgentEnd,
    MessageEnd,
    RequestEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.sinks.readable import ReadableLog, assistant_lines, call_line, result_lines

HEARTBEAT_S = 20.0
"""Seconds between heartbeat lines while a model request is in flight."""


class Narration:
    def __init__(self, api: ExtensionAPI, heartbeat_s: float | None = None) -> None:
        self.log = ReadableLog(api.services.jsonl.line)
        self.redactor = api.services.redactor
        self.heartbeat_s = HEARTBEAT_S if heartbeat_s is None else heartbeat_s
        self._calls: dict[str, int] = {}
        self._beat: asyncio.Task[None] | None = None

    def on_event(self, event: Any, ctx: ExtensionContext) -> None:
        if isinstance(event, TurnStart):
            self.log.new_turn()
            self._calls.clear()
        elif isinstance(event, MessageEnd):
            self.stop_heartbeat()
            if event.message.role == "assistant":
                self.log.lines(assistant_lines(self.redactor.text(event.message.text)))
        elif isinstance(event, ToolExecutionStart):
            index = self._calls[event.tool_call_id] = len(self._calls) + 1
            self.log.lines([call_line(index, event.tool_name, self.redactor.obj(event.args))])
        elif isinstance(event, ToolExecutionEnd):
            index = self._calls.get(event.tool_call_id, 0)
            text = self.redactor.text(event.result.text)
            self.log.lines(result_lines(index, event.tool_name, text, event.is_error, event.duration_ms))
        elif isinstance(event, RequestEnd | TurnEnd | AgentEnd):
            self.stop_heartbeat()

    def on_request(self, event: Any, ctx: ExtensionContext) -> None:
        self.stop_heartbeat()
        self._beat = asyncio.get_running_loop().create_task(self._heartbeat())

    async def _heartbeat(self) -> None:
        started = time.monotonic()
        while True:
            await asyncio.sleep(self.heartbeat_s)
            self.log.heartbeat(time.monotonic() - started)

    def stop_heartbeat(self, *_: Any) -> None:
        beat, self._beat = self._beat, None
        if beat is not None:
            beat.cancel()


def setup(api: ExtensionAPI) -> None:
    if not api.services.jsonl.readable:
        return
    narration = Narration(api)
    api.on("*", narration.on_event, deltas=False)
    api.on("before_provider_request", narration.on_request)
    api.on("session_shutdown", narration.stop_heartbeat)
