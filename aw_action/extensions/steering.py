"""Built-in extension 3: steering (resource pressure) and the run's soft deadline.

Notices (``notices.py``): token and AI-credit budgets (80/90/95/99 % and budget-warn-percent,
below budget-critical-percent, where the cost tracker aborts) and run time (80/90/95/99 % of
``timeout-minutes`` plus the time warning and time-critical notices, below the soft deadline).
After each turn whose answer asked for tools, the highest pending notice is queued with
``session.steer``: it reaches the model with the next request (after the tool batch), which is
labelled ``steering: {type, threshold}`` on its usage record. One notice per request: a new one is
queued only after the previous one went out. Delivered notices land in
``state.steering_notices`` and as JSONL ``steering`` records.

Deadline (``deadline.py``): a timer started with the session aborts the run with stop reason
``timeout`` at the soft deadline, so the harness still has time to write its records. Time counts
from the process start (``deadline.run_start``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from aw_action.agent.events import BeforeProviderRequestEvent, ProviderRequestResult, RequestEnd, TurnEnd
from aw_action.ai.types import AssistantMessage, UserMessage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.notices import NoticeLadder, NoticeType, Rung, named_rung, notice_text, rungs_for
from aw_action.run.time_budget import Clock, MonotonicClock, TimeBudget, run_start

BUDGET_TYPES: tuple[tuple[NoticeType, str], ...] = (("token", "effective_tokens"), ("ai_credit", "ai_credits"))


def setup(api: ExtensionAPI) -> None:
    install(api, MonotonicClock(), start=run_start(api.state.started_monotonic))


def install(api: ExtensionAPI, clock: Clock, start: float | None = None) -> None:
    """Set up steering on ``clock`` (tests pass a manual clock); ``start`` defaults to now."""
    config = api.config
    settings = config.harness.steering
    state = api.state
    began = clock.now() if start is None else start
    time_budget = TimeBudget.from_minutes(
        config.timeout_minutes, settings.time_warning_minutes, settings.time_critical_minutes
    )
    limits = dict(state.limits)
    state.limits["minutes"] = config.timeout_minutes
    critical = settings.budget_critical_percent
    rungs = time_budget.rungs()
    for type_, name in BUDGET_TYPES:
        if name in limits:
            rungs += rungs_for(type_, critical, [named_rung(type_, settings.budget_warn_percent, "budget_warning")])
    ladder = NoticeLadder(rungs)
    queued: tuple[Rung, str] | None = None
    in_flight: tuple[Rung, str] | None = None
    timer: asyncio.Task[None] | None = None
    agent_started = False

    def observe() -> float:
        elapsed = clock.now() - began
        ladder.observe("timeout", time_budget.percent(elapsed))
        if "effective_tokens" in limits:
            ladder.observe("token", 100.0 * state.effective_tokens / limits["effective_tokens"])
        used_credits = state.ai_credits
        if "ai_credits" in limits and used_credits is not None:
            ladder.observe("ai_credit", 100.0 * used_credits / limits["ai_credits"])
        return elapsed

    def on_turn_end(event: TurnEnd, ctx: ExtensionContext) -> None:
        nonlocal queued
        elapsed = observe()
        if queued is not None or in_flight is not None or not event.message.tool_calls or ctx.session.signal.aborted:
            return
        rung = ladder.take()
        if rung is not None:
            text = notice_text(rung, abort_percent=critical, minutes_left=time_budget.minutes_left(elapsed))
            ctx.steer(text)
            queued = (rung, text)

    def before_request(event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> ProviderRequestResult | None:
        nonlocal queued, in_flight
        if event.purpose != "agent" or queued is None or ctx.session.signal.aborted:
            return None
        rung, text = queued
        if not _delivered(ctx, text):
            return None
        queued, in_flight = None, (rung, text)
        return ProviderRequestResult(steering={"type": rung.type, "threshold": rung.threshold})

    def on_request_end(event: RequestEnd, ctx: ExtensionContext) -> None:
        nonlocal in_flight
        if in_flight is None or event.steering is None:
            return
        rung, text = in_flight
        in_flight = None
        record = state.requests[-1] if state.requests else None
        request_id = record.request_id if record else event.message.request_id
        notice: dict[str, Any] = {"type": rung.type, "threshold": rung.threshold, "request_id": request_id}
        turn = record.turn if record else len(state.turns) + 1
        state.steering_notices.append({**notice, "turn": turn, "kind": rung.kind, "text": text})
        ctx.emit("steering", **notice, kind=rung.kind, message=text)

    async def watch(ctx: ExtensionContext) -> None:
        deadline = began + time_budget.soft_deadline_s
        while (left := deadline - clock.now()) > 0:
            await clock.sleep(left)
        session = ctx.session
        if session.signal.aborted or (agent_started and session.is_idle):
            return
        ctx.emit(
            "timeout",
            timeout_minutes=config.timeout_minutes,
            soft_deadline_s=round(time_budget.soft_deadline_s, 3),
            margin_s=round(time_budget.margin_s, 3),
            elapsed_ms=round((clock.now() - began) * 1000),
        )
        ctx.abort("timeout")

    def start_timer(event: Any, ctx: ExtensionContext) -> None:
        nonlocal timer, agent_started
        agent_started = agent_started or getattr(event, "type", None) == "agent_start"
        if timer is None:
            timer = asyncio.get_running_loop().create_task(watch(ctx))

    async def stop_timer(event: Any, ctx: ExtensionContext) -> None:
        if timer is not None and not timer.done():
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer

    api.on("session_start", start_timer)
    api.on("agent_start", start_timer)
    api.on("turn_end", on_turn_end)
    api.on("before_provider_request", before_request)
    api.on("request_end", on_request_end)
    api.on("session_shutdown", stop_timer)


def _delivered(ctx: ExtensionContext, text: str) -> bool:
    """Whether the notice is already in the history the next request sends."""
    for message in reversed(ctx.session.messages):
        if isinstance(message, AssistantMessage):
            return False
        if isinstance(message, UserMessage) and message.source == "steer" and message.text == text:
            return True
    return False
