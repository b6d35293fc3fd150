"""The run's events as the JSONL stream on stderr (``jsonl.JsonlSink``), and the per-turn human line.

Every agent event gets a record except the streaming deltas (``message_update``,
``tool_execution_update``), which carry partial content at token rate. Message records carry
role and shape, never text; in gh-aw mode, where gh-aw's log parser reads this stream, a tool
call's input and the head of its output and an answer's text too, capped (``jsonl_records``).
The stream never raises (``JsonlSink`` swallows a closed stderr).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aw_action.agent.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    HarnessEvent,
    MessageEnd,
    MessageStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)
from aw_action.run.state import RunState
from aw_action.sinks import jsonl_records
from aw_action.sinks.jsonl import JsonlSink
from aw_action.sinks.record_writer import BookedRequest

if TYPE_CHECKING:
    from aw_action.run.result import RunResult


class EventStream:
    def __init__(self, sink: JsonlSink, state: RunState, *, gh_aw: bool) -> None:
        self.sink = sink
        self.state = state
        self.gh_aw = gh_aw
        self.session_id = ""

    def start(self, session_id: str) -> None:
        self.session_id = session_id
        phase = {"phase": self.state.record.phase} if self.state.record.phase else {}
        self.sink.event("session_start", model=self.state.model, session_id=session_id, **phase)

    def on_event(self, event: AgentEvent) -> None:
        sink = self.sink
        if isinstance(event, TurnEnd):
            self._turn_end(event)
        elif isinstance(event, ToolExecutionStart):
            shown = {"input": jsonl_records.tool_input(event.args)} if self.gh_aw else {}
            sink.event("tool_start", tool=event.tool_name, tool_call_id=event.tool_call_id, **shown)
        elif isinstance(event, ToolExecutionEnd):
            sink.event(
                "tool_end",
                tool=event.tool_name,
                tool_call_id=event.tool_call_id,
                is_error=event.is_error,
                duration_ms=event.duration_ms,
                **(jsonl_records.tool_output(event.result.text) if self.gh_aw else {}),
            )
        elif isinstance(event, HarnessEvent):
            sink.record(event.name, event.fields)
        elif isinstance(event, TurnStart):
            sink.event("turn_start", turn=self.state.ledger.next_turn)
        elif isinstance(event, MessageStart | MessageEnd):
            ended = isinstance(event, MessageEnd)
            sink.record(event.type, jsonl_records.message(event.message, ended, with_text=self.gh_aw))
        elif isinstance(event, AgentStart):
            sink.event("agent_start", session_id=self.session_id)
        elif isinstance(event, AgentEnd):
            sink.event("agent_end", messages=len(event.messages), error=event.error)

    def on_request(self, request: BookedRequest) -> None:
        self.sink.record("request_end", jsonl_records.request_end(request.record, request.http_status))

    def _turn_end(self, event: TurnEnd) -> None:
        """A completed turn as the ledger booked it; a turn cut short with its stop reason and what
        its requests used so far (``ledger.open_turn``)."""
        ledger = self.state.ledger
        if event.completed and not ledger.turns:
            return
        t = ledger.turns[-1] if event.completed else ledger.open_turn(len(event.tool_results))
        fields = jsonl_records.turn_end(t, self.state.current_model, event.stop_reason)
        self.sink.record("turn_end", fields)
        line = jsonl_records.human_turn_line(
            t.turn,
            fields["input_tokens"],
            fields["output_tokens"],
            t.cumulative_tokens,
            t.cumulative_cost_usd,
            effective=t.effective_tokens,
            cumulative_effective=t.cumulative_effective_tokens,
            effective_limit=self.state.record.limits.get("effective_tokens"),
            tools=[(r.tool_name, r.is_error) for r in event.tool_results],
        )
        if event.completed:
            self.sink.line(line)
        elif t.usage.total == 0 and not event.tool_results:
            self.sink.line(f"Turn {t.turn}: not started (the run stopped: {event.stop_reason})")
        else:
            self.sink.line(f"{line} | cut short: {event.stop_reason}")

    def finish(self, result: RunResult) -> None:
        """The run's error, when it failed with one; in gh-aw mode the run's story for gh-aw's
        summary (``sinks/gh_aw_story.py``); then ``session_end`` (the stream's last line)."""
        outcome = result.outcome
        if outcome.stop_reason in ("error", "credentials_refused") and result.error:
            self.sink.event("error", message=result.error, stop_reason=outcome.stop_reason)
        if self.gh_aw:
            # when used, not at start (tests/cli/test_first_request_imports.py)
            from aw_action.sinks.gh_aw_story import RECORD, run_story

            self.sink.record(RECORD, run_story(result, self.session_id))
        self.sink.record("session_end", jsonl_records.session_end(result.record()))
