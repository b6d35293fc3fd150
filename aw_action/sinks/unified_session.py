"""``aw_session.jsonl``: the run in gh-aw's unified agent session shape.

Framing (gh-aw unified-agent-session spec v1.4): line 1 is the fixed ``session.format`` header,
then ``{type, timestamp, data, provenance}`` records in time order (written as they happen), and
a closing ``session.collection`` coverage record. Known types carry camelCase payloads valid
against gh-aw's schema; harness records (warnings, retries, steering, ...) use the opaque
``harness.<event>`` namespace. No prompt, response, tool input or tool output text is written:
the transcript holds content; this file holds facts.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from aw_action.agent import transcript
from aw_action.agent.events import AgentEvent, HarnessEvent, ToolExecutionEnd, ToolExecutionStart, TurnEnd, TurnStart
from aw_action.run import record_table
from aw_action.run.ledger import RequestRecord
from aw_action.sinks import token_usage, unified_records
from aw_action.sinks.record_writer import BookedRequest, JsonlRecordWriter, SessionInfo, WriterContext
from aw_action.timestamps import utc_iso, utc_now

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

FILE_NAME = record_table.UNIFIED_SESSION.name
COLLECTED_PATH = f"usage/{FILE_NAME}"
"""Where gh-aw's conclusion job puts the collected file in its artifact."""
HEADER: dict[str, Any] = {
    "type": "session.format",
    "data": {"version": 1},
    "provenance": {"component": "collector", "phase": "conclusion", "path": COLLECTED_PATH, "index": 0},
}
TRANSCRIPT_SOURCE = transcript.FILE_NAME
USAGE_SOURCE = token_usage.FILE_NAME


def usage_report(record: RequestRecord, http_status: int | None, total_aic: float | None) -> dict[str, Any]:
    """``usage.report`` data for one request (the alias of ``firewall.token_usage``)."""
    u = record.usage
    data: dict[str, Any] = {
        "provider": record.provider,
        "model": record.model,
        "requestId": record.request_id,
        "status": http_status,
        "durationMs": record.duration_ms,
        "usage": {
            "inputTokens": u.input,
            "outputTokens": u.output,
            "reasoningOutputTokens": u.reasoning,
            "cacheReadInputTokens": u.cache_read,
            "cacheCreationInputTokens": u.cache_write,
            "inputTokensIncludeCache": False,
        },
    }
    if record.ai_credits is not None:
        data["aic"] = round(record.ai_credits, 6)
    if total_aic is not None:
        data["totalAic"] = round(total_aic, 6)
    if record.purpose and record.purpose != "agent":
        data["purpose"] = record.purpose
    if record.steering:
        data["steering"] = {"type": record.steering.get("type"), "threshold": record.steering.get("threshold")}
    return data


class UnifiedSession(JsonlRecordWriter):
    """The standalone run's unified session (gh-aw's conclusion job writes it in gh-aw mode)."""

    row = record_table.UNIFIED_SESSION
    subsystem = "unified-session"

    def __init__(self, ctx: WriterContext) -> None:
        super().__init__(ctx)
        self._indexes: dict[tuple[str, str, str], int] = {}
        self.session_id = ""

    def start(self, session: SessionInfo) -> None:
        """The header, ``workflow.info`` and ``session.start``."""
        self.session_id = session.session_id
        self.file.write(HEADER)
        info = unified_records.workflow_info(session.configured_model, session.runner_facts)
        self.record("workflow.info", info, component="workflow", source="config.json")
        started = {"sourceEngine": "aw", "model": self.state.model, "sessionId": self.session_id}
        self.record("session.start", {**started, "cwd": session.workspace})

    def on_event(self, event: AgentEvent) -> None:
        if isinstance(event, TurnEnd):
            self._turn_end(event)
        elif isinstance(event, ToolExecutionStart):
            self.record("tool.execution_start", {"toolCallId": event.tool_call_id, "toolName": event.tool_name})
        elif isinstance(event, ToolExecutionEnd):
            data = unified_records.tool_complete(event.tool_call_id, event.tool_name, event.is_error, event.duration_ms)
            self.record("tool.execution_complete", data)
        elif isinstance(event, HarnessEvent):
            self.record(f"harness.{event.name}", dict(event.fields))
        elif isinstance(event, TurnStart):
            self.record(
                "assistant.turn_start", {"sessionId": self.session_id, "turnId": str(self.state.ledger.next_turn)}
            )

    def _turn_end(self, event: TurnEnd) -> None:
        """A completed turn as the ledger booked it; a turn cut short with its stop reason (gh-aw's
        correlation record has no field for it: ``harness.turn_cut_short``)."""
        ledger = self.state.ledger
        if event.completed and not ledger.turns:
            return
        turn = str(ledger.turns[-1].turn if event.completed else ledger.next_turn)
        if not event.completed:
            self.record("harness.turn_cut_short", {"turnId": turn, "stopReason": event.stop_reason})
        ended = {"sessionId": self.session_id, "turnId": turn, "model": self.state.current_model}
        self.record("assistant.turn_end", ended)

    def on_request(self, request: BookedRequest) -> None:
        data = usage_report(request.record, request.http_status, self.state.ledger.ai_credits)
        self.record("usage.report", data, source=USAGE_SOURCE)

    def on_warning(self, message: str) -> None:
        self.record("harness.warning", {"message": message})

    def record(
        self,
        type_: str,
        data: dict[str, Any],
        *,
        component: str = "agent",
        source: str = TRANSCRIPT_SOURCE,
        at: datetime | None = None,
    ) -> None:
        key = (component, "agent", source)
        index = self._indexes.get(key, 0)
        self._indexes[key] = index + 1
        stamp = at or utc_now()
        provenance = {
            "component": component,
            "phase": "agent",
            "path": source,
            "index": index,
            "timestampMs": int(stamp.timestamp() * 1000),
        }
        self.file.write({"type": type_, "timestamp": utc_iso(stamp), "data": data, "provenance": provenance})

    def finish(self, result: RunResult) -> None:
        """The closing records (``unified_records.closing``), the ``session.collection`` coverage
        record, and close the file."""
        state = self.state
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.explain import explain

        why = explain(result, state.record.reporting.audience).plain()
        for type_, data in unified_records.closing(result.record(), state, self.session_id, state.record.limits, why):
            self.record(type_, data)
        sources = [
            {"component": c, "phase": p, "path": path, "events": n, "timestampUnit": "milliseconds"}
            for (c, p, path), n in self._indexes.items()
        ]
        absent = [c for c in ("mcp", "firewall", "safe_output") if all(s["component"] != c for s in sources)]
        self.file.write(
            {
                "type": "session.collection",
                "data": {"sources": sources, "warnings": 0, "untimedEvents": 0, "absentComponents": absent},
                "provenance": {"component": "collector", "phase": "conclusion", "path": COLLECTED_PATH, "index": 1},
            }
        )
        super().finish(result)
