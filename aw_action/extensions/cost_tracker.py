"""Built-in extension 2: cost tracker (the usage ledger and the budget gates).

Counts every model request once into the run's ``UsageLedger``: a ``RequestRecord`` per
``request_end`` (with effective tokens and cost), a ``TurnRecord`` per ``turn_end``, and every
tool call that reaches its gate. Every sink reads the ledger.

Budgets come from the budget table (``run/budget_kinds.py``), resolved once when the run is
assembled; the tracker enforces its own copy, so nothing else can loosen them. Gates, spec §8.2
/ §11.2.2, by the kind's ``gate``:

- ``amount`` (effective tokens, AI credits) hold exactly: before each request its worst case
  (``budget_rules.py``: the input as estimated by ``request_size.py``, every token at full
  price, plus ``max_tokens`` of output) must fit what is left of every budget. The request's
  ``max_tokens`` is lowered to what the remainder pays for (a ``budget_cap`` record says so),
  and the request is refused (trigger ``next_request``) when not even ``MIN_ANSWER_TOKENS``
  fit. No request starts once a budget reached ``budget-critical-percent`` of its limit
  (trigger ``critical_percent``); the turn that crossed it completes (its tools run). An answer
  cut short by the budget's cap (``stop_reason`` ``length``) stops the run at once (trigger
  ``answer_cut``) and is discarded: a half-written tool call must not run. After each turn the
  tracker forecasts the next request (``ledger.outlook``); steering warns when the one after
  it is not expected to fit;
- ``turns``: the request that would start turn N+1 is refused;
- ``tool_calls``: call N+1 is blocked before it runs, and the run stops.

A model switch (``AgentSession.set_model``, at a save point: the session's ``model_change``
record) is booked in the ledger; every gate reads the model of the request at hand (the
snapshot's), so from the switch on the new model's prices, output limit and context window
apply, and the forecast after a turn uses the model the next request will use.

Each stop emits one ``budget_exceeded`` record ``{budget, reason: "hard_limit",
forced_termination: true, used, limit, ...}`` (kept in the journal) and aborts the session with
the kind's stop reason.

A request refused by a budget enforced outside the harness (AWF's api-proxy 403
``ai_credits_limit_exceeded``: the ``budget`` error kind) stops the run the same way, with
``reason: "external_limit"``, the proxy's figures and ``trigger: "api_proxy"``
(``run/external_budget.py``): the run ends ``budget_exceeded``, not ``error``.
"""

from __future__ import annotations

from typing import Any

from aw_action.agent.events import (
    BeforeProviderRequestEvent,
    HarnessEvent,
    ProviderRequestResult,
    RequestEnd,
    ToolCallEvent,
    ToolCallResult,
    TurnEnd,
)
from aw_action.agent.loop import llm_messages
from aw_action.agent.tools import tool_spec
from aw_action.ai.catalog import provider_specs
from aw_action.ai.types import AssistantMessage, Model
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.budget_rules import MIN_ANSWER_TOKENS, Charge, CreditCharge, EffectiveTokenCharge
from aw_action.extensions.request_size import RequestSizer, SizeEstimate
from aw_action.lazy_dataclass import dataclass
from aw_action.run.budget_kinds import KINDS_BY_NAME, Limit
from aw_action.run.effective_tokens import MULTIPLIER_ENV, Multipliers, credits, effective_tokens, parse_overrides
from aw_action.run.external_budget import refusal
from aw_action.run.ledger import ModelChange, Outlook, RequestRecord
from aw_action.timestamps import utc_iso

UNPRICED_HINT = "set harness.budget.max-effective-tokens, which does not depend on prices"
NOTICE_TOKENS = 64
"""Room the forecast keeps for a steering notice added before the next request."""


@dataclass(frozen=True)
class Planned:
    """The request in flight: its size estimate and, when a budget lowered it, its cap."""

    purpose: str
    size: SizeEstimate
    max_tokens: int
    capped_by: Limit | None


class CostTracker:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.state = api.state
        self.ledger = api.state.ledger
        self.limits: dict[str, Limit] = dict(api.services.limits)
        self.multipliers = self._multipliers()
        self.warned_models: set[str] = set()
        self.sizer = RequestSizer()
        self.planned: Planned | None = None
        self.longest_answer = 0
        """The longest agent answer so far (output + reasoning tokens): the forecast's answer."""
        self.growth = 0
        """The most input one turn added after its answer (tool results, notices), estimated."""

    def _multipliers(self) -> Multipliers:
        try:
            return Multipliers(parse_overrides(self.api.env.get(MULTIPLIER_ENV)))
        except ValueError as exc:
            self.api.warn(f"{MULTIPLIER_ENV} ignored: {exc}")
            return Multipliers()

    def _by_gate(self, gate: str) -> list[Limit]:
        return [limit for limit in self.limits.values() if limit.kind.gate == gate]

    def _amounts(self) -> list[tuple[Limit, float]]:
        """The amount budgets whose usage is known, with that usage."""
        out = []
        for limit in self._by_gate("amount"):
            used = limit.kind.used(self.state)
            if used is not None:
                out.append((limit, used))
        return out

    def charge_for(self, limit: Limit, model: Model) -> Charge | None:
        """How ``limit`` is charged for a request to ``model``; None when it cannot be known."""
        if limit.name == "effective_tokens":
            return EffectiveTokenCharge(self.multipliers.get(model.id))
        if limit.name == "ai_credits":
            spec = provider_specs().get(model.provider)
            charge = CreditCharge(model, spec.price_provider if spec else None)
            return charge if charge.priced() else None
        return None

    def multiplier_for(self, msg: AssistantMessage, ctx: ExtensionContext) -> float:
        found = self.multipliers.lookup(msg.model)
        if found is None and msg.model not in self.warned_models and msg.provider != "faux":
            self.warned_models.add(msg.model)
            ctx.warn(
                f"no effective-token multiplier for model {msg.model!r}; using 1.0", code="unknown_model_multiplier"
            )
        return 1.0 if found is None else found

    def stop(self, ctx: ExtensionContext, limit: Limit, used: float, trigger: str, **extra: Any) -> None:
        record: dict[str, Any] = {
            "budget": limit.name,
            "reason": "hard_limit",
            "forced_termination": True,
            "used": round(used, 2),
            "limit": limit.limit,
            "percent": round(limit.percent(used), 1),
            "critical_percent": limit.critical_percent,
            "trigger": trigger,
            **extra,
        }
        if self.state.journal.record_budget_stop(record):
            ctx.emit("budget_exceeded", **record)
        ctx.abort(limit.kind.stop_reason)

    # ---- after a request ---------------------------------------------------------------------

    def on_request_end(self, event: RequestEnd, ctx: ExtensionContext) -> None:
        msg = event.message
        et = effective_tokens(msg.usage, self.multiplier_for(msg, ctx))
        cost = 0.0 if msg.cost_usd is None and msg.usage.total == 0 else msg.cost_usd  # nothing used, nothing owed
        status = "ok" if msg.stop_reason not in ("error", "aborted") else msg.stop_reason
        priced_before = self.ledger.cost_usd is not None
        self.ledger.record_request(
            RequestRecord(
                timestamp=utc_iso(),
                request_id=msg.request_id or msg.response_id or f"req-{len(self.ledger.requests) + 1}",
                provider=msg.provider,
                model=msg.model,
                purpose=event.purpose,
                status=status,
                streaming=event.streaming,
                usage=msg.usage,
                duration_ms=event.duration_ms,
                effective_tokens=et,
                cost_usd=cost,
                ai_credits=credits(cost),
                turn=self.ledger.next_turn,
                attempts=event.attempts,
                steering=event.steering,
                error=msg.error_message,
                prompt=max(self.state.record.current_prompt, 1),
            )
        )
        if priced_before and self.ledger.cost_usd is None and "ai_credits" in self.limits:
            detail = f"the price of model {msg.model!r} is unknown, so max-ai-credits cannot be enforced"
            ctx.warn(detail)
            self.state.journal.degrade("budget", detail, UNPRICED_HINT)
        planned, self.planned = self.planned, None
        if msg.error_kind == "budget":
            self.refused(ctx, msg.error_message)
            return
        if status != "ok" or planned is None or planned.purpose != event.purpose:
            return
        self.sizer.reconcile(planned.size, msg.usage)
        if event.purpose == "agent":
            self.longest_answer = max(self.longest_answer, msg.usage.output + msg.usage.reasoning)
        if planned.capped_by is not None and msg.stop_reason == "length":
            limit = planned.capped_by
            used = limit.kind.used(self.state) or 0.0
            self.stop(ctx, limit, used, "answer_cut", max_tokens=planned.max_tokens)

    def refused(self, ctx: ExtensionContext, message: str | None) -> None:
        """The proxy refused the request for a spent budget: stop with that kind's stop reason."""
        found = refusal(message)
        kind = KINDS_BY_NAME[found.budget]
        own = self.limits.get(kind.name)
        record: dict[str, Any] = {
            "budget": kind.name,
            "reason": "external_limit",
            "forced_termination": True,
            "used": found.used if found.used is not None else round(kind.used(self.state) or 0.0, 2),
            "limit": found.limit if found.limit is not None else (own.limit if own else None),
            "trigger": "api_proxy",
            "message": (message or "")[:500],
        }
        if self.state.journal.record_budget_stop(record):
            ctx.emit("budget_exceeded", **record)
        ctx.abort(kind.stop_reason)

    # ---- before a request --------------------------------------------------------------------

    def before_request(self, event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> ProviderRequestResult | None:
        if event.purpose == "agent":
            for limit in self._by_gate("turns"):
                used = float(len(self.ledger.turns))
                if used >= limit.limit:
                    self.stop(ctx, limit, used, limit.kind.stop_reason)
                    return None
        amounts = self._amounts()
        for limit, used in amounts:
            if limit.exceeded(used):
                self.stop(ctx, limit, used, "critical_percent")
                return None
        if not amounts:
            return None
        size = self.sizer.estimate(event.system_prompt, event.messages, event.tools)
        if event.purpose == "agent":
            self.growth = max(self.growth, size.tokens - size.known)
        ceiling = event.options.max_tokens or event.model.max_output_tokens
        floor = min(MIN_ANSWER_TOKENS, ceiling)
        answer, capped_by = ceiling, None
        for limit, used in amounts:
            charge = self.charge_for(limit, event.model)
            if charge is None:
                continue
            fits = charge.max_answer(size.tokens, limit.limit - used, ceiling)
            if fits < floor:
                worst = round(charge.worst(size.tokens, floor), 2)
                self.stop(ctx, limit, used, "next_request", next_request=worst, input_tokens=size.tokens)
                return None
            if fits < answer:
                answer, capped_by = fits, limit
        self.planned = Planned(event.purpose, size, answer, capped_by)
        if capped_by is not None:
            ctx.emit(
                "budget_cap",
                budget=capped_by.name,
                purpose=event.purpose,
                max_tokens=answer,
                model_max_tokens=ceiling,
                input_tokens=size.tokens,
            )
        options = event.options.copy()
        options.max_tokens = answer  # always set: an API without it answers up to the model's maximum
        return ProviderRequestResult(options=options)

    # ---- tool calls and turns ----------------------------------------------------------------

    def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
        for limit in self._by_gate("tool_calls"):
            used = float(self.ledger.tool_calls)
            if used >= limit.limit:
                self.stop(ctx, limit, used, limit.kind.stop_reason)
                reason = f"Blocked: the run's tool-call budget ({limit.limit:g}) is used up"
                return ToolCallResult(block=True, reason=reason)
        self.ledger.record_tool_call(event.tool_call_id)
        return None

    def on_tool_end(self, event: Any, ctx: ExtensionContext) -> None:
        self.ledger.record_tool_end(event.tool_name, event.is_error, event.duration_ms, event.tool_call_id)

    def on_harness(self, event: HarnessEvent, ctx: ExtensionContext) -> None:
        if event.name != "model_change":
            return
        fields = event.fields
        change = ModelChange(
            self.ledger.next_turn, str(fields["from"]), str(fields["to"]), int(fields.get("reasoning_dropped", 0))
        )
        self.ledger.record_model_change(change)

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        if not event.completed:  # cut short by an abort: reported, never booked (the run ends)
            return
        self.ledger.close_turn(len(event.tool_results), max(self.state.record.current_prompt, 1))
        self.forecast(ctx)

    def forecast(self, ctx: ExtensionContext) -> None:
        """``ledger.outlook``: what the next request will cost at most with an answer as long as
        the longest so far, and whether the budget is then expected to pay for one more."""
        session = ctx.session
        model = session.model
        specs = [tool_spec(t) for t in session.tools]
        size = self.sizer.estimate(session.system_prompt, llm_messages(session.messages), specs)
        next_input = size.tokens + NOTICE_TOKENS
        ceiling = model.max_output_tokens
        answer = min(ceiling, max(MIN_ANSWER_TOKENS, self.longest_answer))
        after_input = next_input + answer + max(self.growth, size.tokens - size.known)
        outlook: dict[str, Outlook] = {}
        for limit, used in self._amounts():
            charge = self.charge_for(limit, model)
            if charge is None:
                continue
            cost = charge.worst(next_input, answer)
            after = used + cost
            last = after >= limit.critical_point or after + charge.worst(after_input, MIN_ANSWER_TOKENS) > limit.limit
            outlook[limit.name] = Outlook(limit.name, used, cost, last)
        self.ledger.outlook = outlook


def setup(api: ExtensionAPI) -> None:
    tracker = CostTracker(api)
    api.on("request_end", tracker.on_request_end)
    api.on("before_provider_request", tracker.before_request)
    api.on("tool_call", tracker.on_tool_call)
    api.on("tool_execution_end", tracker.on_tool_end)
    api.on("turn_end", tracker.on_turn_end)
    api.on("harness", tracker.on_harness)
