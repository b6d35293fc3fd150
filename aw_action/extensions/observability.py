"""Built-in extension 5: observability, the wiring from events to sinks (spec §8.5, §11.4).

Sinks: the JSONL stream and per-turn human line (stderr), ``token-usage.jsonl``,
``aw_session.jsonl`` and ``context-provenance.jsonl`` (written a line at a time as the run
goes), OTel spans (when an OTLP endpoint is configured), and the step summary (at shutdown).
Facts come from ``RunState``, which the cost tracker and steering fill before this extension
sees an event (it loads last among the built-ins).

Isolation contract: a sink that fails is switched off with a JSONL ``warning`` and a degraded
notice (``RunState.degrade``); nothing here raises into the run or changes its exit code.
OTel export and the final flush are bounded by ``AW_OTLP_TIMEOUT_S`` seconds (default 5).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.state import RequestRecord, ToolStats
from aw_action.sinks import genai
from aw_action.sinks.otel import DEFAULT_TIMEOUT_S, OtelSink, resolve_target
from aw_action.sinks.provenance_file import ProvenanceFile
from aw_action.sinks.summary import Outcome, append_step_summary, render_run_summary
from aw_action.sinks.token_usage import TokenUsageFile
from aw_action.sinks.unified_session import USAGE_SOURCE, UnifiedSession, usage_report

if TYPE_CHECKING:
    from aw_action.harness import RunResult

FILE_HINT = "check that the output dir (AW_OUTPUT_DIR) is writable and has free space"
HINTS = {
    "token-usage": FILE_HINT,
    "unified-session": FILE_HINT,
    "context-provenance": FILE_HINT,
    "step-summary": "check that GITHUB_STEP_SUMMARY names a writable file",
    "otel": "check OTLP endpoint connectivity and the observability.otlp headers",
}
MAX_OTEL_WARNINGS = 3


def human_turn_line(turn: int, input_tokens: int, output_tokens: int, cumulative: int, cost: float | None) -> str:
    cost_text = "cost unknown" if cost is None else f"${cost:.4f}"
    return (
        f"> **Turn {turn}**: {input_tokens:,} in / {output_tokens:,} out | "
        f"cumulative {cumulative:,} tokens ({cost_text})"
    )


def otlp_timeout(env: Mapping[str, str]) -> float:
    """Seconds per OTLP export and for the final flush: ``AW_OTLP_TIMEOUT_S`` (0.1-30), default 5."""
    try:
        value = float(env.get("AW_OTLP_TIMEOUT_S") or DEFAULT_TIMEOUT_S)
    except ValueError:
        value = DEFAULT_TIMEOUT_S
    return min(max(value, 0.1), 30.0)


def _now_ns() -> int:
    return time.time_ns()


class Observability:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.state = api.state
        self.jsonl = api.services.jsonl
        redactor = api.services.redactor
        out = api.output_dir
        self.usage = TokenUsageFile(out, redactor)
        self.unified = UnifiedSession(out, redactor)
        self.provenance = ProvenanceFile(out, redactor)
        self.otel: OtelSink | None = None
        self.dead: set[str] = set()
        self.session_id = ""
        self.http_status: int | None = None
        self.requests_seen = 0
        self.otel_warnings: set[str] = set()

    # ---- isolation ---------------------------------------------------------------------------

    def guard(self, sink: str, action: Callable[[], Any]) -> None:
        if sink in self.dead:
            return
        try:
            action()
        except Exception as exc:
            self.dead.add(sink)
            self.report(sink, f"{sink} sink failed and was switched off: {type(exc).__name__}: {exc}")

    def report(self, sink: str, message: str) -> None:
        """A warning written now (not queued), so it precedes ``session_end``."""
        self.state.warnings.append(message)
        self.jsonl.event("warning", message=message, extension=self.api.name, sink=sink)
        self.state.degrade(sink, message, HINTS.get(sink, FILE_HINT))
        if sink != "unified-session":
            self.guard("unified-session", lambda: self.unified.record("harness.warning", {"message": message}))

    def check_otel(self, messages: list[str]) -> None:
        for text in messages:
            if text in self.otel_warnings or len(self.otel_warnings) >= MAX_OTEL_WARNINGS:
                continue
            self.otel_warnings.add(text)
            where = f" to {self.otel.endpoint}" if self.otel is not None else ""
            self.report("otel", f"OTLP export{where} failed: {text}")

    # ---- lifecycle ---------------------------------------------------------------------------

    def on_start(self, event: Any, ctx: ExtensionContext) -> None:
        s = ctx.session
        self.session_id = s.session_id
        model = s.model
        self.jsonl.event("session_start", model=self.state.model, session_id=self.session_id)
        self.guard("unified-session", self.unified.start)
        env = self.api.env
        self.guard(
            "unified-session",
            lambda: self.unified.record(
                "workflow.info",
                {
                    "engineId": "aw",
                    "requestedModel": self.api.config.engine.model,
                    "workflow": env.get("GITHUB_WORKFLOW"),
                    "repository": env.get("GITHUB_REPOSITORY"),
                    "runId": env.get("GITHUB_RUN_ID"),
                },
                component="workflow",
                source="config.json",
            ),
        )
        self.guard(
            "unified-session",
            lambda: self.unified.record(
                "session.start",
                {
                    "sourceEngine": "aw",
                    "model": self.state.model,
                    "sessionId": self.session_id,
                    "cwd": str(self.api.workspace),
                },
            ),
        )
        self.guard("context-provenance", lambda: self.provenance.sync(self.state.provenance))
        otlp = self.api.config.observability.otlp
        target = resolve_target(otlp.endpoint, otlp.headers, env)
        if target is not None:

            def start_otel() -> None:
                self.api.services.redactor.add(*target.headers.values())
                self.otel = OtelSink(
                    target, genai.resource_attributes(env), self.api.services.redactor, otlp_timeout(env)
                )
                attrs = genai.session_start_attributes(model.provider, model.id, self.session_id)
                self.otel.start_session("invoke_agent", attrs, _now_ns())

            self.guard("otel", start_otel)

    def on_response(self, event: AfterProviderResponseEvent, ctx: ExtensionContext) -> None:
        self.http_status = event.status

    def on_event(self, event: AgentEvent, ctx: ExtensionContext) -> None:
        if isinstance(event, TurnEnd):
            self.turn_end(event)
        elif isinstance(event, RequestEnd):
            self.request_end(event, ctx)
        elif isinstance(event, ToolExecutionStart):
            self.jsonl.event("tool_start", tool=event.tool_name, tool_call_id=event.tool_call_id)
            self.unified_record("tool.execution_start", {"toolCallId": event.tool_call_id, "toolName": event.tool_name})
        elif isinstance(event, ToolExecutionEnd):
            self.tool_end(event)
        elif isinstance(event, HarnessEvent):
            self.jsonl.record(event.name, event.fields)
            self.unified_record(f"harness.{event.name}", dict(event.fields))
        elif isinstance(event, TurnStart):
            turn = len(self.state.turns) + 1
            self.jsonl.event("turn_start", turn=turn)
            self.unified_record("assistant.turn_start", {"sessionId": self.session_id, "turnId": str(turn)})
        elif isinstance(event, MessageStart | MessageEnd):
            self.message_event(event)
        elif isinstance(event, AgentStart):
            self.jsonl.event("agent_start", session_id=self.session_id)
        elif isinstance(event, AgentEnd):
            self.jsonl.event("agent_end", messages=len(event.messages), error=event.error)

    def unified_record(self, type_: str, data: dict[str, Any], **kw: Any) -> None:
        self.guard("unified-session", lambda: self.unified.record(type_, data, **kw))

    def message_event(self, event: MessageStart | MessageEnd) -> None:
        """Role and shape only: message text never reaches the JSONL stream."""
        msg = event.message
        fields: dict[str, Any] = {"role": msg.role}
        if msg.role == "assistant" and isinstance(event, MessageEnd):
            fields.update(stop_reason=msg.stop_reason, tool_calls=len(msg.tool_calls))
        elif msg.role == "user":
            fields["source"] = msg.source
        self.jsonl.event(event.type, **fields)

    def request_end(self, event: RequestEnd, ctx: ExtensionContext) -> None:
        status, self.http_status = self.http_status, None
        for record in self.state.requests[self.requests_seen :]:
            self.requests_seen += 1
            self.one_request(record, status, event.message.api, ctx.session.model.id)

    def one_request(self, record: RequestRecord, status: int | None, api_name: str, request_model: str) -> None:
        u = record.usage
        self.jsonl.event(
            "request_end",
            request_id=record.request_id,
            model=record.model,
            purpose=record.purpose,
            status=record.status,
            http_status=status,
            input_tokens=u.input,
            output_tokens=u.output,
            cache_read_tokens=u.cache_read,
            cache_write_tokens=u.cache_write,
            reasoning_tokens=u.reasoning,
            duration_ms=record.duration_ms,
            effective_tokens=round(record.effective_tokens, 2),
            cost_usd=record.cost_usd,
            steering=record.steering,
        )
        self.guard("token-usage", lambda: self.usage.append(record, status, api_name))
        report = usage_report(record, status, self.state.ai_credits)
        self.unified_record("usage.report", report, source=USAGE_SOURCE)
        otel = self.otel
        if otel is not None:
            end = _now_ns()
            attrs = genai.chat_attributes(record, request_model, self.session_id)
            error = (record.error or record.status) if record.status != "ok" else None
            self.guard(
                "otel",
                lambda: otel.child(
                    f"chat {record.model}", attrs, end - record.duration_ms * 1_000_000, end, client=True, error=error
                ),
            )

    def tool_end(self, event: ToolExecutionEnd) -> None:
        stats = self.state.tools.setdefault(event.tool_name, ToolStats())
        stats.count += 1
        stats.errors += int(event.is_error)
        stats.duration_ms += event.duration_ms
        self.jsonl.event(
            "tool_end",
            tool=event.tool_name,
            tool_call_id=event.tool_call_id,
            is_error=event.is_error,
            duration_ms=event.duration_ms,
        )
        self.unified_record(
            "tool.execution_complete",
            {
                "toolCallId": event.tool_call_id,
                "toolName": event.tool_name,
                "success": not event.is_error,
                "isError": event.is_error,
                "durationMs": event.duration_ms,
            },
        )
        if self.otel is not None:
            otel, end = self.otel, _now_ns()
            attrs = genai.tool_attributes(event.tool_name, event.tool_call_id, event.is_error)
            self.guard(
                "otel",
                lambda: otel.child(
                    f"execute_tool {event.tool_name}",
                    attrs,
                    end - event.duration_ms * 1_000_000,
                    end,
                    error="tool returned an error" if event.is_error else None,
                ),
            )

    def turn_end(self, event: TurnEnd) -> None:
        if not self.state.turns:
            return
        t = self.state.turns[-1]
        input_tokens = t.usage.input + t.usage.cache_read + t.usage.cache_write
        output_tokens = t.usage.output + t.usage.reasoning
        self.jsonl.event(
            "turn_end",
            turn=t.turn,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cumulative_tokens=t.cumulative_tokens,
            cumulative_cost_usd=t.cumulative_cost_usd,
            model=self.state.model,
            cumulative_effective_tokens=round(t.cumulative_effective_tokens, 2),
        )
        self.jsonl.line(
            human_turn_line(t.turn, input_tokens, output_tokens, t.cumulative_tokens, t.cumulative_cost_usd)
        )
        self.unified_record(
            "assistant.turn_end", {"sessionId": self.session_id, "turnId": str(t.turn), "model": self.state.model}
        )
        self.guard("context-provenance", lambda: self.provenance.sync(self.state.provenance))
        if self.otel is not None:
            self.check_otel(self.otel.take_failures())

    # ---- shutdown ----------------------------------------------------------------------------

    async def on_shutdown(self, result: RunResult, ctx: ExtensionContext) -> None:
        state = self.state
        outcome = Outcome(result.conclusion, result.stop_reason, result.exit_code)
        self.guard("context-provenance", lambda: self._close_provenance())
        if self.otel is not None:
            otel = self.otel
            self.guard(
                "otel",
                lambda: otel.end_session(
                    genai.session_end_attributes(state, outcome.stop_reason, outcome.exit_code),
                    _now_ns(),
                    error=result.error or (outcome.stop_reason if outcome.exit_code else None),
                ),
            )
            try:
                self.check_otel(otel.take_failures() + await asyncio.to_thread(otel.shutdown))
            except Exception as exc:
                self.report("otel", f"OTLP shutdown failed: {type(exc).__name__}: {exc}")
        self.guard("unified-session", lambda: self._close_unified(outcome, result.error))
        self.guard("token-usage", self.usage.close)
        summary_path = self.api.env.get("GITHUB_STEP_SUMMARY")
        if summary_path:
            limits = self.limits()
            self.guard(
                "step-summary",
                lambda: append_step_summary(
                    Path(summary_path),
                    lambda rows: render_run_summary(state, outcome, limits, rows),
                    self.api.services.redactor,
                ),
            )
        if outcome.stop_reason == "error" and result.error:
            self.jsonl.event("error", message=result.error, stop_reason=outcome.stop_reason)
        totals = state.totals
        self.jsonl.event(
            "session_end",
            stop_reason=outcome.stop_reason,
            conclusion=outcome.conclusion,
            exit_code=outcome.exit_code,
            turns=len(state.turns),
            tokens=totals.total,
            input_tokens=totals.input,
            output_tokens=totals.output,
            cache_read_tokens=totals.cache_read,
            cache_write_tokens=totals.cache_write,
            reasoning_tokens=totals.reasoning,
            effective_tokens=round(state.effective_tokens, 2),
            cost_usd=state.cost_usd,
            ai_credits=state.ai_credits,
            elapsed_ms=state.elapsed_ms,
            degraded=[d.subsystem for d in state.degraded],
        )
        for path in (self.usage.path, self.unified.path, self.provenance.path):
            if path.exists():
                state.add_file(path)

    def limits(self) -> dict[str, float]:
        """Configured limits (from config) overlaid with what the cost tracker recorded."""
        cfg = self.api.config
        budget = cfg.harness.budget
        limits: dict[str, float] = {"minutes": float(cfg.timeout_minutes)}
        if budget.max_effective_tokens:
            limits["effective_tokens"] = float(budget.max_effective_tokens)
        if budget.max_ai_credits:
            limits["ai_credits"] = float(budget.max_ai_credits)
        if budget.max_turns:
            limits["turns"] = float(budget.max_turns)
        limits.update(self.state.limits)
        return limits

    def _close_provenance(self) -> None:
        self.provenance.sync(self.state.provenance)
        if not self.provenance.path.exists():
            self.provenance.path.parent.mkdir(parents=True, exist_ok=True)
            self.provenance.path.touch()
        self.provenance.close()

    def _close_unified(self, outcome: Outcome, error: str | None) -> None:
        s = self.state
        t = s.totals
        usage = {
            "totalTokens": t.total,
            "inputTokens": t.input,
            "outputTokens": t.output,
            "reasoningOutputTokens": t.reasoning,
            "cacheReadInputTokens": t.cache_read,
            "cacheCreationInputTokens": t.cache_write,
            "inputTokensIncludeCache": False,
        }
        result: dict[str, Any] = {
            "sessionId": self.session_id,
            "model": s.model,
            "numTurns": len(s.turns),
            "durationMs": s.elapsed_ms,
            "status": outcome.conclusion,
            "sourceType": "result",
            "errors": [error] if error else [],
            "usage": usage,
        }
        if s.cost_usd is not None:
            result["totalCostUsd"] = s.cost_usd
        self.unified.record("session.result", result)
        failed = outcome.exit_code != 0
        self.unified.record(
            "agent.execution",
            {
                "categories": [outcome.stop_reason] if failed else [],
                "errorCodes": [],
                "errorTypes": [],
                "exitCode": outcome.exit_code,
            },
        )
        self.unified.record(
            "harness.run",
            {
                "model": s.model,
                "conclusion": outcome.conclusion,
                "stopReason": outcome.stop_reason,
                "exitCode": outcome.exit_code,
                "durationMs": s.elapsed_ms,
                "effectiveTokens": round(s.effective_tokens, 2),
                "costUsd": s.cost_usd,
                "aiCredits": s.ai_credits,
                "limits": self.limits(),
                "budgetExceeded": s.budget_exceeded,
                "degraded": [{"subsystem": d.subsystem, "detail": d.detail, "hint": d.hint} for d in s.degraded],
            },
        )
        self.unified.finish()


def setup(api: ExtensionAPI) -> None:
    obs = Observability(api)
    api.on("session_start", obs.on_start)
    api.on("after_provider_response", obs.on_response)
    api.on("*", obs.on_event)
    api.on("session_shutdown", obs.on_shutdown)
