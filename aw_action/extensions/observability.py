"""Built-in extension 5: observability, the wiring from the run's events to its sinks (spec §8.5, §11.4).

Sinks: the JSONL stream and per-turn human line on stderr (``sinks/jsonl_stream.py``); the record
files, one writer each, from the table of the run's mode (``sinks/record_files.py``: opened at
``session_start``, given the events and booked requests they need, finished at
``session_shutdown``); OTel spans (when an OTLP endpoint is configured); the step summary (at
shutdown). Facts come from ``RunState``, which the cost tracker and steering fill before this
extension sees an event (it loads last among the built-ins).

Isolation contract: a sink that fails is switched off with a JSONL ``warning`` and a degraded
notice (``RunState.degrade``), and the record files still open record the warning; nothing here
raises into the run or changes its exit code. OTel spans go to every endpoint
``sinks/otel.resolve_targets`` finds (gh-aw's ``GH_AW_OTLP_ENDPOINTS`` fan-out included), the
session span parented on ``TRACEPARENT``. Each OTel export is bounded by ``AW_OTLP_TIMEOUT_S``
seconds (default 5); the final flush and stop by that plus two seconds, or by two seconds in all
on cancellation.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aw_action.agent.events import AfterProviderResponseEvent, AgentEvent, RequestEnd, ToolExecutionEnd, TurnEnd
from aw_action.environment.runner import STEP_SUMMARY_VAR
from aw_action.environment.tuning import OUTPUT_DIR
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.run.mode import run_mode
from aw_action.sinks import genai
from aw_action.sinks.jsonl_stream import EventStream
from aw_action.sinks.otel import OtelSink, otlp_timeout, resolve_targets
from aw_action.sinks.record_files import writers_for
from aw_action.sinks.record_writer import BookedRequest, RecordWriter, SessionInfo, WriterContext

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

FILE_HINT = f"check that the output dir ({OUTPUT_DIR.name}) is writable and has free space"
HINTS = {
    "step-summary": f"check that {STEP_SUMMARY_VAR} names a writable file",
    "otel": "check OTLP endpoint connectivity and the observability.otlp headers",
}
MAX_OTEL_WARNINGS = 3
CANCEL_FLUSH_S = 1.0
"""On cancellation the runner kills the container seconds later: flush spans for at most this,
and stop the exporter within as long again. That keeps a hung collector well inside the run's
wind-down budget (``aw_action.action.CANCEL_RUN_S``), so the record files and summary after it
still get written."""


class Observability:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.state = api.state
        mode = run_mode(api.env)
        context = WriterContext(api.output_dir, api.services.redactor, api.state, api.services.records)
        self.writers: list[RecordWriter] = [writer(context) for writer in writers_for(mode)]
        self.stream = EventStream(api.services.jsonl, api.state, gh_aw=mode == "gh-aw")
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
        """A warning written now (not queued), so it precedes ``session_end``, and recorded in
        every record file still open but the failing one."""
        self.state.journal.warn(message, announce=False)
        self.api.services.jsonl.event("warning", message=message, extension=self.api.name, sink=sink)
        self.state.journal.degrade(sink, message, HINTS.get(sink, FILE_HINT))
        self.fan_out(lambda writer: writer.on_warning(message), skip=sink)

    def fan_out(self, call: Callable[[RecordWriter], None], skip: str | None = None) -> None:
        """``call`` on every record writer still open, each under its guard."""
        for writer in self.writers:
            if writer.subsystem != skip and not writer.closed:
                self.guard(writer.subsystem, functools.partial(call, writer))

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
        api = self.api
        session = SessionInfo(
            self.session_id,
            str(api.workspace),
            api.config.engine.model,
            api.env,
            config=api.config,
            model=api.model,
            config_dir=api.services.config_dir,
            tmpdir=ctx.session.tool_context.env.get("TMPDIR"),
            runner_facts=api.runner_facts,
        )
        self.stream.start(self.session_id)
        self.fan_out(lambda writer: writer.start(session))
        self.start_otel(ctx)

    def start_otel(self, ctx: ExtensionContext) -> None:
        env, otlp = self.api.env, self.api.config.observability.otlp
        targets, problem = resolve_targets(otlp.endpoint, otlp.headers, env)
        if problem:
            self.state.journal.warn(f"{problem}; spans go to OTEL_EXPORTER_OTLP_* instead", sink="otel")
        if not targets:
            return
        model, redactor = ctx.session.model, self.api.services.redactor

        def start() -> None:
            redactor.add(*(v for t in targets for v in t.headers.values()))
            self.otel = OtelSink(targets, genai.resource_attributes(self.api.runner_facts), redactor, otlp_timeout(env))
            attrs = genai.session_start_attributes(model.provider, model.id, self.session_id)
            if self.state.record.phase:
                attrs["gh-aw.phase"] = self.state.record.phase
            self.otel.start_session("invoke_agent", attrs, time.time_ns(), env.get("TRACEPARENT"))

        self.guard("otel", start)

    def on_response(self, event: AfterProviderResponseEvent, ctx: ExtensionContext) -> None:
        self.http_status = event.status

    def on_event(self, event: AgentEvent, ctx: ExtensionContext) -> None:
        self.fan_out(lambda writer: writer.on_event(event))
        self.stream.on_event(event)
        if isinstance(event, RequestEnd):
            self.request_end(event, ctx)
        elif isinstance(event, ToolExecutionEnd):
            end = time.time_ns()
            self.spans(
                lambda otel: otel.tool(event.tool_name, event.tool_call_id, event.is_error, event.duration_ms, end)
            )
        elif isinstance(event, TurnEnd) and self.otel is not None:
            self.check_otel(self.otel.take_failures())

    def request_end(self, event: RequestEnd, ctx: ExtensionContext) -> None:
        """Every request the ledger booked since the last one (a retried request is one)."""
        status, self.http_status = self.http_status, None
        for record in self.state.ledger.requests[self.requests_seen :]:
            self.requests_seen += 1
            self.one_request(BookedRequest(record, status, event.message.api), ctx.session.model.id)

    def one_request(self, booked: BookedRequest, request_model: str) -> None:
        self.stream.on_request(booked)
        self.fan_out(lambda writer: writer.on_request(booked))
        end = time.time_ns()
        self.spans(lambda otel: otel.chat(booked.record, request_model, self.session_id, end))

    # ---- shutdown ----------------------------------------------------------------------------

    async def on_shutdown(self, result: RunResult, ctx: ExtensionContext) -> None:
        """Finalise the spans, then every record file, then the summary, then ``session_end``
        (the last JSONL line)."""
        await self.close_otel(result)
        self.fan_out(lambda writer: writer.finish(result))
        summary = self.api.runner_facts.step_summary
        if summary:
            # when used, not at start (tests/cli/test_first_request_imports.py)
            from aw_action.sinks.summary import write_run_summary

            messages, redactor = ctx.session.messages, self.api.services.redactor
            self.guard("step-summary", lambda: write_run_summary(Path(summary), result, messages, redactor))
        self.stream.finish(result)
        for writer in self.writers:
            if writer.path.exists():
                self.state.record.add_file(writer.path)

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


def setup(api: ExtensionAPI) -> None:
    otlp_timeout(api.env)  # read at the session's start; a malformed value must fail the invocation now
    obs = Observability(api)
    api.on("session_start", obs.on_start)
    api.on("after_provider_response", obs.on_response)
    api.on("*", obs.on_event, deltas=False)  # its writers and the JSONL stream record no delta
    api.on("session_shutdown", obs.on_shutdown)
