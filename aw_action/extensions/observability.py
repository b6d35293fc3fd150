"""Built-in extension 5: observability, the wiring from events to sinks (spec §8.5, §11.4).

Sinks: the JSONL stream and per-turn human line (stderr), ``token-usage.jsonl``,
``aw_session.jsonl`` and ``context-provenance.jsonl`` (written a line at a time as the run
goes), OTel spans (when an OTLP endpoint is configured), and the step summary (at shutdown).
In gh-aw mode (``run/mode.py``) the records are the ones gh-aw collects: ``agent-session.jsonl``
(canonical events, ``sinks/agent_session_events.py``) instead of ``token-usage.jsonl`` and
``aw_session.jsonl``, which AWF and gh-aw's conclusion job own there.
Every agent event gets a JSONL record except the streaming deltas (``message_update``,
``tool_execution_update``), which carry partial content at token rate; message records carry
role and shape, never text (in gh-aw mode, where gh-aw's log parser reads this stream, a tool
call's input and the head of its output and an answer's text too, capped: ``jsonl_records``).
Facts come from ``RunState``, which the cost tracker and steering fill before this extension
sees an event (it loads last among the built-ins).

Isolation contract: a sink that fails is switched off with a JSONL ``warning`` and a degraded
notice (``RunState.degrade``); nothing here raises into the run or changes its exit code.
OTel spans go to every endpoint ``sinks/otel.resolve_targets`` finds (gh-aw's
``GH_AW_OTLP_ENDPOINTS`` fan-out included), the session span parented on ``TRACEPARENT``.
Each OTel export is bounded by ``AW_OTLP_TIMEOUT_S`` seconds (default 5); the final flush and
stop by that plus two seconds, or by two seconds in all on cancellation.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aw_action.agent.events import (
    AfterProviderResponseEvent,
    AgentEnd,
    AgentEvent,
    AgentStart,
    HarnessEvent,
    MessageEnd,
    MessageStart,
    RequestEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    TurnEnd,
    TurnStart,
)
from aw_action.exits import InvocationError
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.run.ledger import RequestRecord
from aw_action.run.mode import gh_aw_mode
from aw_action.run.result import RunResult
from aw_action.sinks import genai, jsonl_records, unified_records
from aw_action.sinks.agent_session_events import AgentSessionRecorder
from aw_action.sinks.jsonl_records import human_turn_line
from aw_action.sinks.otel import DEFAULT_TIMEOUT_S, OtelSink, resolve_targets
from aw_action.sinks.provenance_file import ProvenanceFile
from aw_action.sinks.summary import append_step_summary, render_run_summary
from aw_action.sinks.summary_story import agent_commands
from aw_action.sinks.token_usage import TokenUsageFile
from aw_action.sinks.unified_session import USAGE_SOURCE, UnifiedSession, usage_report

__all__ = ["human_turn_line", "setup"]

FILE_HINT = "check that the output dir (AW_OUTPUT_DIR) is writable and has free space"
HINTS = {
    "step-summary": "check that GITHUB_STEP_SUMMARY names a writable file",
    "otel": "check OTLP endpoint connectivity and the observability.otlp headers",
}
MAX_OTEL_WARNINGS = 3
CANCEL_FLUSH_S = 1.0
"""On cancellation the runner kills the container seconds later: flush spans for at most this,
and stop the exporter within as long again. That keeps a hung collector well inside the run's
wind-down budget (``aw_action.action.CANCEL_RUN_S``), so the record files and summary after it
still get written."""


def otlp_timeout(env: Mapping[str, str]) -> float:
    """Seconds per OTLP export and for the final flush: ``AW_OTLP_TIMEOUT_S`` (kept within
    0.1-30), default 5; a value that is not a positive number is an invocation error."""
    raw = (env.get("AW_OTLP_TIMEOUT_S") or "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvocationError(f"AW_OTLP_TIMEOUT_S: expected a positive number of seconds, got {raw[:40]!r}")
    return min(max(value, 0.1), 30.0)


class Observability:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.state = api.state
        self.jsonl = api.services.jsonl
        self.redactor = api.services.redactor
        records = api.services.records
        gh_aw = gh_aw_mode(api.env)
        self.gh_aw = gh_aw
        self.usage = None if gh_aw else TokenUsageFile(api.output_dir, self.redactor, records)
        self.unified = None if gh_aw else UnifiedSession(api.output_dir, self.redactor, records)
        self.agent_session = AgentSessionRecorder(api.output_dir, self.redactor, records) if gh_aw else None
        self.provenance = ProvenanceFile(api.output_dir, self.redactor, records)
        self.otel: OtelSink | None = None
        self.dead: set[str] = set()
        self.session_id = ""
        self.http_status: int | None = None
        self.requests_seen = 0
        self.otel_warnings: set[str] = set()

    # ---- isolation ---------------------------------------------------------------------------

    def guard(self, sink: str, action: Callable[[], Any]) -> None:
        """Run one sink action; on failure switch that sink off and report it once."""
        if sink in self.dead:
            return
        try:
            action()
        except Exception as exc:
            self.dead.add(sink)
            self.report(sink, f"{sink} sink failed and was switched off: {type(exc).__name__}: {exc}")

    def report(self, sink: str, message: str) -> None:
        """A warning written now (not queued), so it precedes ``session_end``."""
        self.state.journal.warn(message, announce=False)
        self.jsonl.event("warning", message=message, extension=self.api.name, sink=sink)
        self.state.journal.degrade(sink, message, HINTS.get(sink, FILE_HINT))
        if sink != "unified-session":
            self.record("harness.warning", {"message": message})
        if sink != "agent-session":
            self.agent(lambda rec: rec.harness("warning", {"message": message}))

    def record(self, type_: str, data: dict[str, Any], **kw: Any) -> None:
        """A unified-session record; none once the file is finished (its closing record is last)."""
        unified = self.unified
        if unified is not None and not unified.file.closed:
            self.guard("unified-session", lambda: unified.record(type_, data, **kw))

    def agent(self, action: Callable[[AgentSessionRecorder], None]) -> None:
        """An agent-session.jsonl event (gh-aw mode); none once the file is finished."""
        recorder = self.agent_session
        if recorder is not None and not recorder.writer.closed:
            self.guard("agent-session", lambda: action(recorder))

    def spans(self, action: Callable[[OtelSink], None]) -> None:
        otel = self.otel
        if otel is not None:
            self.guard("otel", lambda: action(otel))

    def check_otel(self, messages: list[str]) -> None:
        for text in messages:
            if text in self.otel_warnings or len(self.otel_warnings) >= MAX_OTEL_WARNINGS:
                continue
            self.otel_warnings.add(text)
            where = f" to {self.otel.endpoint}" if self.otel is not None else ""
            self.report("otel", f"OTLP export{where} failed: {text}")

    # ---- events ------------------------------------------------------------------------------

    def on_start(self, event: Any, ctx: ExtensionContext) -> None:
        self.session_id = ctx.session.session_id
        model, env = ctx.session.model, self.api.env
        phase = {"phase": self.state.record.phase} if self.state.record.phase else {}
        self.jsonl.event("session_start", model=self.state.model, session_id=self.session_id, **phase)
        if self.unified is not None:
            self.guard("unified-session", self.unified.start)
        self.agent(lambda rec: rec.start(self.state.model, self.session_id, str(self.api.workspace)))
        info = unified_records.workflow_info(self.api.config.engine.model, env)
        self.record("workflow.info", info, component="workflow", source="config.json")
        self.record(
            "session.start",
            {
                "sourceEngine": "aw",
                "model": self.state.model,
                "sessionId": self.session_id,
                "cwd": str(self.api.workspace),
            },
        )
        self.guard("context-provenance", lambda: self.provenance.sync(self.state.record.provenance))
        otlp = self.api.config.observability.otlp
        targets, problem = resolve_targets(otlp.endpoint, otlp.headers, env)
        if problem:
            self.state.journal.warn(f"{problem}; spans go to OTEL_EXPORTER_OTLP_* instead", sink="otel")
        if targets:

            def start_otel() -> None:
                self.redactor.add(*(v for t in targets for v in t.headers.values()))
                self.otel = OtelSink(targets, genai.resource_attributes(env), self.redactor, otlp_timeout(env))
                attrs = genai.session_start_attributes(model.provider, model.id, self.session_id)
                if self.state.record.phase:
                    attrs["gh-aw.phase"] = self.state.record.phase
                self.otel.start_session("invoke_agent", attrs, time.time_ns(), env.get("TRACEPARENT"))

            self.guard("otel", start_otel)

    def on_response(self, event: AfterProviderResponseEvent, ctx: ExtensionContext) -> None:
        self.http_status = event.status

    def on_event(self, event: AgentEvent, ctx: ExtensionContext) -> None:
        self.agent(lambda rec: rec.on_event(event, self.state))
        if isinstance(event, TurnEnd):
            self.turn_end(event)
        elif isinstance(event, RequestEnd):
            self.request_end(event, ctx)
        elif isinstance(event, ToolExecutionStart):
            shown = {"input": jsonl_records.tool_input(event.args)} if self.gh_aw else {}
            self.jsonl.event("tool_start", tool=event.tool_name, tool_call_id=event.tool_call_id, **shown)
            self.record("tool.execution_start", {"toolCallId": event.tool_call_id, "toolName": event.tool_name})
        elif isinstance(event, ToolExecutionEnd):
            self.tool_end(event)
        elif isinstance(event, HarnessEvent):
            self.jsonl.record(event.name, event.fields)
            self.record(f"harness.{event.name}", dict(event.fields))
        elif isinstance(event, TurnStart):
            turn = self.state.ledger.next_turn
            self.jsonl.event("turn_start", turn=turn)
            self.record("assistant.turn_start", {"sessionId": self.session_id, "turnId": str(turn)})
        elif isinstance(event, MessageStart | MessageEnd):
            ended = isinstance(event, MessageEnd)
            self.jsonl.record(event.type, jsonl_records.message(event.message, ended, with_text=self.gh_aw))
        elif isinstance(event, AgentStart):
            self.jsonl.event("agent_start", session_id=self.session_id)
        elif isinstance(event, AgentEnd):
            self.jsonl.event("agent_end", messages=len(event.messages), error=event.error)

    def request_end(self, event: RequestEnd, ctx: ExtensionContext) -> None:
        status, self.http_status = self.http_status, None
        for record in self.state.ledger.requests[self.requests_seen :]:
            self.requests_seen += 1
            self.one_request(record, status, event.message.api, ctx.session.model.id)

    def one_request(self, record: RequestRecord, status: int | None, api_name: str, request_model: str) -> None:
        self.jsonl.record("request_end", jsonl_records.request_end(record, status))
        usage = self.usage
        if usage is not None:
            self.guard("token-usage", lambda: usage.append(record, status, api_name, self.state.ledger.ai_credits))
        self.record("usage.report", usage_report(record, status, self.state.ledger.ai_credits), source=USAGE_SOURCE)
        end = time.time_ns()
        self.spans(lambda otel: otel.chat(record, request_model, self.session_id, end))

    def tool_end(self, event: ToolExecutionEnd) -> None:
        self.jsonl.event(
            "tool_end",
            tool=event.tool_name,
            tool_call_id=event.tool_call_id,
            is_error=event.is_error,
            duration_ms=event.duration_ms,
            **(jsonl_records.tool_output(event.result.text) if self.gh_aw else {}),
        )
        self.record(
            "tool.execution_complete",
            unified_records.tool_complete(event.tool_call_id, event.tool_name, event.is_error, event.duration_ms),
        )
        end = time.time_ns()
        self.spans(lambda otel: otel.tool(event.tool_name, event.tool_call_id, event.is_error, event.duration_ms, end))

    def turn_end(self, event: TurnEnd) -> None:
        """The ``turn_end`` records: a completed turn as the ledger booked it; a turn cut short
        with its stop reason and what its requests used so far (``ledger.open_turn``)."""
        ledger = self.state.ledger
        if event.completed and not ledger.turns:
            return
        t = ledger.turns[-1] if event.completed else ledger.open_turn(len(event.tool_results))
        fields = jsonl_records.turn_end(t, self.state.model, event.stop_reason)
        self.jsonl.record("turn_end", fields)
        line = human_turn_line(
            t.turn,
            fields["input_tokens"],
            fields["output_tokens"],
            t.cumulative_tokens,
            t.cumulative_cost_usd,
            effective=t.effective_tokens,
            cumulative_effective=t.cumulative_effective_tokens,
            effective_limit=self.state.record.limits.get("effective_tokens"),
        )
        self.jsonl.line(line if event.completed else f"{line} | cut short: {event.stop_reason}")
        if not event.completed:  # gh-aw's correlation record has no field for it
            self.record("harness.turn_cut_short", {"turnId": str(t.turn), "stopReason": event.stop_reason})
        self.record(
            "assistant.turn_end", {"sessionId": self.session_id, "turnId": str(t.turn), "model": self.state.model}
        )
        self.guard("context-provenance", lambda: self.provenance.sync(self.state.record.provenance))
        if self.otel is not None:
            self.check_otel(self.otel.take_failures())

    # ---- shutdown ----------------------------------------------------------------------------

    async def on_shutdown(self, result: RunResult, ctx: ExtensionContext) -> None:
        """Finalise every sink, then the summary, then ``session_end`` (the last JSONL line)."""
        state = self.state
        outcome = result.outcome
        limits = state.record.limits
        self.guard("context-provenance", self.close_provenance)
        await self.close_otel(result)
        if self.unified is not None:
            self.guard("unified-session", lambda: self.close_unified(result))
        if self.usage is not None:
            self.guard("token-usage", self.usage.close)
        limits_now = dict(limits)
        self.agent(lambda rec: rec.finish(result, state, self.session_id, limits_now))
        summary = self.api.env.get("GITHUB_STEP_SUMMARY")
        if summary:

            def write_summary() -> None:
                commands = agent_commands(ctx.session.messages)
                render = lambda rows: render_run_summary(  # noqa: E731
                    state, outcome, limits, rows, error=result.error, commands=commands
                )
                append_step_summary(Path(summary), render, self.redactor)
                state.record.summary_written = True

            self.guard("step-summary", write_summary)
        if outcome.stop_reason in ("error", "credentials_refused") and result.error:
            self.jsonl.event("error", message=result.error, stop_reason=outcome.stop_reason)
        self.jsonl.record("session_end", jsonl_records.session_end(result.record()))
        for sink in (self.usage, self.unified, self.agent_session, self.provenance):
            if sink is not None and sink.path.exists():
                state.record.add_file(sink.path)

    async def close_otel(self, result: RunResult) -> None:
        otel = self.otel
        if otel is None:
            return
        outcome = result.outcome
        attrs = genai.session_end_attributes(self.state, outcome.stop_reason, outcome.exit_code)
        failure = result.error or (outcome.stop_reason if outcome.exit_code else None)
        self.guard("otel", lambda: otel.end_session(attrs, time.time_ns(), error=failure))
        try:
            budget = min(CANCEL_FLUSH_S, otel.timeout_s) if outcome.stop_reason == "cancelled" else None
            self.check_otel(otel.take_failures() + await asyncio.to_thread(otel.shutdown, budget))
        except Exception as exc:
            self.report("otel", f"OTLP shutdown failed: {type(exc).__name__}: {exc}")

    def close_provenance(self) -> None:
        self.provenance.sync(self.state.record.provenance)
        self.provenance.file.ensure()  # the file exists even when no entry was recorded
        self.provenance.close()

    def close_unified(self, result: RunResult) -> None:
        assert self.unified is not None
        records = unified_records.closing(result.record(), self.state, self.session_id, self.state.record.limits)
        for type_, data in records:
            self.unified.record(type_, data)
        self.unified.finish()


def setup(api: ExtensionAPI) -> None:
    otlp_timeout(api.env)  # read at the session's start; a malformed value must fail the invocation now
    obs = Observability(api)
    api.on("session_start", obs.on_start)
    api.on("after_provider_response", obs.on_response)
    api.on("*", obs.on_event)
    api.on("session_shutdown", obs.on_shutdown)
