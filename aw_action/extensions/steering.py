"""Built-in extension 3: steering (resource pressure) and the run's soft deadline.

Notices (``notices.py``): every budget kind whose table row names a steering type gets its
ladder (80/90/95/99 % and budget-warn-percent, below budget-critical-percent, where the cost
tracker stops the run); run time gets 80/90/95/99 % of ``timeout-minutes`` plus the time warning
and time-critical notices, below the soft deadline. After each turn whose answer asked for
tools, the highest pending notice is queued with ``session.steer``: it reaches the model with
the next request (after the tool batch), which is labelled ``steering: {type, threshold}`` on
its usage record. One notice per request: a new one is queued only after the previous one went
out. Delivered notices land in the journal and as JSONL ``steering`` records. Budget notices
look one request ahead: when the cost tracker's forecast (``ledger.outlook``) says the budget
will not pay for the request after the next one, the next request carries the ``budget_final``
notice, so the agent hears it on a request whose answer is kept, before the gate stops the run.

In gh-aw mode with AWF's token steering on (``ghaw/awf_steering.py``) the api-proxy sends the
token and credit notices, so the budget ladders are left out (one ``steering_delegated`` record
says so) and only the time ladder remains; the budget gates are the cost tracker's and stay.

Deadline (``run/time_budget.py``): a timer that lives as long as the run (``session_start`` to
``session_shutdown``, across every prompt) stops the run with stop reason ``timeout`` at the soft
deadline, so the harness still has time to write its records. If it fires while no prompt runs,
the run record says so and the harness starts no further prompt. Time counts from the process
start (``time_budget.run_start``).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import Any

from aw_action.agent.events import BeforeProviderRequestEvent, ProviderRequestResult, RequestEnd, TurnEnd
from aw_action.ai.types import AssistantMessage, UserMessage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.notices import (
    NoticeLadder,
    NoticeType,
    Rung,
    named_rung,
    notice_text,
    rungs_for,
    time_rungs,
)
from aw_action.ghaw.awf_steering import awf_steering
from aw_action.run.budget_kinds import Limit
from aw_action.run.time_budget import Clock, MonotonicClock, TimeBudget, run_start


class Steering:
    def __init__(self, api: ExtensionAPI, clock: Clock, start: float | None = None) -> None:
        config = api.config
        settings = config.harness.steering
        self.api = api
        self.state = api.state
        self.clock = clock
        self.began = clock.now() if start is None else start
        self.time_budget = TimeBudget.from_minutes(
            config.timeout_minutes, settings.time_warning_minutes, settings.time_critical_minutes
        )
        self.critical = settings.budget_critical_percent
        self.awf = awf_steering(api.env, api.runner_facts)
        self.steered: list[Limit] = [
            lim
            for lim in api.services.limits.values()
            if lim.kind.steering and lim.kind.gate == "amount" and not self.awf.tokens
        ]
        rungs = time_rungs(self.time_budget)
        for limit in self.steered:
            type_ = _notice_type(limit)
            warning = named_rung(type_, settings.budget_warn_percent, "budget_warning")
            rungs += rungs_for(type_, self.critical, [warning])
        self.ladder = NoticeLadder(rungs)
        self.queued: tuple[Rung, str] | None = None
        self.in_flight: tuple[Rung, str] | None = None
        self.timer: asyncio.Task[None] | None = None
        self.final_sent: set[str] = set()

    def observe(self) -> float:
        elapsed = self.clock.now() - self.began
        self.ladder.observe("timeout", self.time_budget.percent(elapsed))
        for limit in self.steered:
            used = limit.kind.used(self.state)
            if used is not None:
                self.ladder.observe(_notice_type(limit), limit.percent(used))
        return elapsed

    def announce(self, event: Any, ctx: ExtensionContext) -> None:
        """Say once, at session start, whether AWF's api-proxy sends the budget notices."""
        if self.awf.problem:
            ctx.warn(self.awf.problem)
        if self.awf.tokens:
            ctx.emit("steering_delegated", types=["token", "ai_credit"], to="awf_api_proxy", source=self.awf.source)

    # ---- notices -----------------------------------------------------------------------------

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        elapsed = self.observe()
        if self.queued or self.in_flight or not event.message.tool_calls or ctx.session.signal.aborted:
            return
        rung = self.final_notice() or self.ladder.take()
        if rung is not None:
            minutes_left = self.time_budget.minutes_left(elapsed)
            text = notice_text(rung, abort_percent=self.critical, minutes_left=minutes_left)
            ctx.steer(text)
            self.queued = (rung, text)

    def final_notice(self) -> Rung | None:
        """The ``budget_final`` notice, when the cost tracker's forecast says the budget will not
        pay for the request after the next one (once per type; the ladder's rungs of that type
        are then spent: the agent was told the most urgent thing already)."""
        for limit in self.steered:
            outlook = self.state.ledger.outlook.get(limit.name)
            type_ = _notice_type(limit)
            if outlook is None or not outlook.last_call or type_ in self.final_sent:
                continue
            self.final_sent.add(type_)
            self.ladder.delivered.update(r.key for r in self.ladder.rungs if r.type == type_)
            percent = limit.percent(outlook.used)
            return Rung(type_, math.floor(percent), percent, "budget_final")
        return None

    def before_request(self, event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> ProviderRequestResult | None:
        if event.purpose != "agent" or self.queued is None or ctx.session.signal.aborted:
            return None
        rung, text = self.queued
        if not _delivered(ctx, text):
            return None
        self.queued, self.in_flight = None, (rung, text)
        return ProviderRequestResult(steering={"type": rung.type, "threshold": rung.threshold})

    def on_request_end(self, event: RequestEnd, ctx: ExtensionContext) -> None:
        if self.in_flight is None or event.steering is None:
            return
        rung, text = self.in_flight
        self.in_flight = None
        requests = self.state.ledger.requests
        record = requests[-1] if requests else None
        request_id = record.request_id if record else event.message.request_id
        notice: dict[str, Any] = {"type": rung.type, "threshold": rung.threshold, "request_id": request_id}
        turn = record.turn if record else self.state.ledger.next_turn
        self.state.journal.record_notice({**notice, "turn": turn, "kind": rung.kind, "text": text})
        ctx.emit("steering", **notice, kind=rung.kind, message=text)

    # ---- the deadline ------------------------------------------------------------------------

    async def watch(self, ctx: ExtensionContext) -> None:
        deadline = self.began + self.time_budget.soft_deadline_s
        while (left := deadline - self.clock.now()) > 0:
            await self.clock.sleep(left)
        if ctx.session.signal.aborted:
            return  # the run is already stopping for another reason
        ctx.emit(
            "timeout",
            timeout_minutes=self.api.config.timeout_minutes,
            soft_deadline_s=round(self.time_budget.soft_deadline_s, 3),
            margin_s=round(self.time_budget.margin_s, 3),
            elapsed_ms=round((self.clock.now() - self.began) * 1000),
        )
        self.state.record.request_stop("timeout")
        if not ctx.session.is_idle:
            ctx.abort("timeout")

    def start_timer(self, event: Any, ctx: ExtensionContext) -> None:
        if self.timer is None:
            self.timer = asyncio.get_running_loop().create_task(self.watch(ctx))

    async def stop_timer(self, event: Any, ctx: ExtensionContext) -> None:
        if self.timer is not None and not self.timer.done():
            self.timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.timer


def setup(api: ExtensionAPI) -> None:
    install(api, MonotonicClock(), start=run_start(api.state.record.started_monotonic))


def install(api: ExtensionAPI, clock: Clock, start: float | None = None) -> Steering:
    """Set up steering on ``clock`` (tests pass a manual clock); ``start`` defaults to now."""
    steering = Steering(api, clock, start)
    api.on("session_start", steering.announce)
    api.on("session_start", steering.start_timer)
    api.on("agent_start", steering.start_timer)
    api.on("turn_end", steering.on_turn_end)
    api.on("before_provider_request", steering.before_request)
    api.on("request_end", steering.on_request_end)
    api.on("session_shutdown", steering.stop_timer)
    return steering


def _notice_type(limit: Limit) -> NoticeType:
    if limit.kind.steering is None:
        raise ValueError(f"budget kind {limit.name} names no notice type")
    return limit.kind.steering


def _delivered(ctx: ExtensionContext, text: str) -> bool:
    """Whether the notice is already in the history the next request sends."""
    for message in reversed(ctx.session.messages):
        if isinstance(message, AssistantMessage):
            return False
        if isinstance(message, UserMessage) and message.source == "steer" and message.text == text:
            return True
    return False
