"""The run as gh-aw's canonical agent-session events: the file gh-aw mode writes (``agent_session``).

``AgentSessionRecorder`` turns the agent's events into the canonical events of
``sinks/agent_session.py`` and appends each at once (a killed run keeps every line it finished):

- the session starting: ``session.start`` {sourceEngine, model, sessionId, cwd};
- a user message (the prompt, a steering notice, a follow-up): ``user.message`` {content};
- ``turn_start`` / ``turn_end``: ``assistant.turn_start`` {turnId, model} / ``assistant.turn_end``;
- an answer: ``assistant.reasoning`` (its thinking text, when the provider returned any) and
  ``assistant.message`` {content, turnId, model, messageId} (when it has text);
- a tool call: ``tool.execution_start`` {toolCallId, toolName, input, turnId} and
  ``tool.execution_complete`` {toolCallId, toolName, success, output | error, durationMs, isError};
- a harness record (steering, budget_exceeded, retry, repair, warnings, ...): ``harness.<name>``;
- the end: ``session.result`` (totals, ``inputTokensIncludeCache: false``) and ``harness.run``
  (stop reason, limits, the budget stop, degraded parts, gh-aw's phase).

Texts are capped (``MAX_MESSAGE_CHARS``, ``MAX_TOOL_CHARS``; the transcript has
them whole) and every line passes the run's redactor (in the writer). A harness field that is not
JSON (a non-finite number, an object) is written as ``null`` or its text, never dropping the line.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aw_action.agent.events import (
    AgentEvent,
    HarnessEvent,
    MessageEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)
from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT
from aw_action.ai.types import AssistantMessage, ThinkingContent, UserMessage
from aw_action.run import record_table
from aw_action.sinks import unified_records
from aw_action.sinks.agent_session import (
    AgentSessionWriter,
    Message,
    SessionResult,
    SessionStart,
    SessionUsage,
    ToolComplete,
    ToolStart,
    Turn,
    now_iso,
)
from aw_action.sinks.record_writer import JsonlRecordWriter, SessionInfo, WriterContext

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

MAX_MESSAGE_CHARS = 16_000
MAX_TOOL_CHARS = 4_000


def capped(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit} more characters in {TRANSCRIPT}]"


def plain(value: Any, limit: int = MAX_TOOL_CHARS) -> Any:
    """``value`` as finite JSON with every string capped (tool inputs, harness fields)."""
    if isinstance(value, str):
        return capped(value, limit)
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): plain(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, limit) for v in value]
    return capped(str(value), limit)


class AgentSessionRecorder(JsonlRecordWriter):
    """Writes one run's events (gh-aw mode); every method may raise ``OSError`` (the caller's
    isolation)."""

    file: AgentSessionWriter

    row = record_table.AGENT_SESSION
    subsystem = "agent-session"

    def __init__(self, ctx: WriterContext) -> None:
        super().__init__(ctx)
        self.turn: str | None = None
        self.model = ""
        self.session_id = ""

    def open_file(self) -> AgentSessionWriter:
        return AgentSessionWriter(self.ctx.output_dir, self.ctx.redactor, self.ctx.records)

    def start(self, session: SessionInfo) -> None:
        self.model, self.session_id = self.state.model, session.session_id
        start = SessionStart(model=self.model, session_id=session.session_id, cwd=session.workspace)
        self.file.emit("session.start", start)

    def on_event(self, event: AgentEvent) -> None:
        state = self.state
        if isinstance(event, TurnStart):
            self.turn = str(state.ledger.next_turn)
            self.file.emit("assistant.turn_start", Turn(turn_id=self.turn, model=self.state.current_model))
        elif isinstance(event, TurnEnd):
            self.file.emit("assistant.turn_end", Turn(turn_id=self.turn or str(len(state.ledger.turns))))
        elif isinstance(event, MessageEnd):
            self.message(event.message)
        elif isinstance(event, ToolExecutionStart):
            start = ToolStart(
                tool_call_id=event.tool_call_id, tool_name=event.tool_name, input=plain(event.args), turn_id=self.turn
            )
            self.file.emit("tool.execution_start", start)
        elif isinstance(event, ToolExecutionEnd):
            self.tool_end(event)
        elif isinstance(event, HarnessEvent):
            self.harness(event.name, event.fields)

    def message(self, message: Any) -> None:
        if isinstance(message, UserMessage):
            self.file.emit("user.message", Message(content=capped(message.text, MAX_MESSAGE_CHARS)))
        elif isinstance(message, AssistantMessage):
            reasoning = "\n".join(c.thinking for c in message.content if isinstance(c, ThinkingContent) and c.thinking)
            ids = {"turn_id": self.turn, "model": message.model or self.model}
            if reasoning:
                self.file.emit("assistant.reasoning", Message(content=capped(reasoning, MAX_MESSAGE_CHARS), **ids))
            if message.text:
                content = capped(message.text, MAX_MESSAGE_CHARS)
                message_id = message.response_id or message.request_id
                self.file.emit("assistant.message", Message(content=content, message_id=message_id, **ids))

    def tool_end(self, event: ToolExecutionEnd) -> None:
        text = capped(event.result.text, MAX_TOOL_CHARS)
        complete = ToolComplete(
            tool_call_id=event.tool_call_id,
            tool_name=event.tool_name,
            success=not event.is_error,
            output=None if event.is_error else text,
            error=text if event.is_error else None,
            duration_ms=max(0, event.duration_ms),
            is_error=event.is_error,
            turn_id=self.turn,
        )
        self.file.emit("tool.execution_complete", complete)

    def harness(self, name: str, fields: Mapping[str, Any]) -> None:
        self.file.write({"type": f"harness.{name}", "data": plain(dict(fields)), "timestamp": now_iso()})

    def on_warning(self, message: str) -> None:
        self.harness("warning", {"message": message})

    def finish(self, result: RunResult) -> None:
        """``session.result`` and ``harness.run``, then close the file."""
        state = self.state
        record = result.record()
        t = record.tokens
        usage = SessionUsage(
            input_tokens=t.input,
            output_tokens=t.output,
            reasoning_output_tokens=t.reasoning,
            cache_read_input_tokens=t.cache_read,
            cache_creation_input_tokens=t.cache_write,
            total_tokens=t.total,
        )
        failed = record.exit_code != 0
        summary = SessionResult(
            num_turns=record.turns,
            duration_ms=record.duration_ms,
            total_cost_usd=record.cost_usd,
            status="error" if failed else "success",
            errors=[record.error or record.stop_reason] if failed else [],
            model=record.model,
            usage=usage,
        )
        self.file.emit("session.result", summary)
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.explain import explain

        why = explain(result, state.record.reporting.audience).plain()
        run = dict(unified_records.closing(record, state, self.session_id, dict(state.record.limits), why)[-1][1])
        run["phase"] = state.record.phase
        self.harness("run", run)
        super().finish(result)
