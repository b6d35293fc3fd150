"""Built-in extension 2: cost tracker (the usage ledger and the budget gates).

Counts every model request once into the run's ``UsageLedger``: a ``RequestRecord`` per
``request_end`` (with effective tokens and cost), a ``TurnRecord`` per ``turn_end``, and every
tool call that reaches its gate. Every sink reads the ledger.

Budgets come from the budget table (``run/budget_kinds.py``), resolved once when the run is
assembled; the tracker enforces its own copy, so nothing else can loosen them. Gates, spec §8.2
/ §11.2.2, by the kind's ``gate``:

- ``amount`` (effective tokens, AI credits): after each request the session is aborted once
  usage reaches ``budget-critical-percent`` of the limit (the loop then discards the in-flight
  turn, so no tool of that response runs); before each request it is refused when a budget is
  already past that point, or when even the cheapest possible next request would cross the limit;
- ``turns``: the request that would start turn N+1 is refused;
- ``tool_calls``: call N+1 is blocked before it runs, and the run stops.

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

from aw_action.agent.compaction import messages_tokens
from aw_action.agent.events import BeforeProviderRequestEvent, RequestEnd, ToolCallEvent, ToolCallResult, TurnEnd
from aw_action.ai.types import AssistantMessage, Usage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.run.budget_kinds import KINDS_BY_NAME, Limit
from aw_action.run.effective_tokens import (
    MULTIPLIER_ENV,
    Multipliers,
    credits,
    effective_tokens,
    min_next_request_et,
    parse_overrides,
)
from aw_action.run.external_budget import refusal
from aw_action.run.ledger import RequestRecord
from aw_action.timestamps import utc_iso

UNPRICED_HINT = "set harness.budget.max-effective-tokens, which does not depend on prices"


class CostTracker:
    def __init__(self, api: ExtensionAPI) -> None:
        self.api = api
        self.state = api.state
        self.ledger = api.state.ledger
        self.limits: dict[str, Limit] = dict(api.services.limits)
        self.multipliers = self._multipliers()
        self.last_agent_usage: Usage | None = None
        self.warned_models: set[str] = set()

    def _multipliers(self) -> Multipliers:
        try:
            return Multipliers(parse_overrides(self.api.env.get(MULTIPLIER_ENV)))
        except ValueError as exc:
            self.api.warn(f"{MULTIPLIER_ENV} ignored: {exc}")
            return Multipliers()

    def _by_gate(self, gate: str) -> list[Limit]:
        return [limit for limit in self.limits.values() if limit.kind.gate == gate]

    def multiplier_for(self, msg: AssistantMessage, ctx: ExtensionContext) -> float:
        found = self.multipliers.lookup(msg.model)
        if found is None and msg.model not in self.warned_models and msg.provider != "faux":
            self.warned_models.add(msg.model)
            ctx.warn(
                f"no effective-token multiplier for model {msg.model!r}; using 1.0", code="unknown_model_multiplier"
            )
        return 1.0 if found is None else found

    def stop(self, ctx: ExtensionContext, limit: Limit, used: float, trigger: str) -> None:
        record: dict[str, Any] = {
            "budget": limit.name,
            "reason": "hard_limit",
            "forced_termination": True,
            "used": round(used, 2),
            "limit": limit.limit,
            "percent": round(limit.percent(used), 1),
            "critical_percent": limit.critical_percent,
            "trigger": trigger,
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
        if event.purpose == "agent" and status == "ok":
            self.last_agent_usage = msg.usage
        if msg.error_kind == "budget":
            self.refused(ctx, msg.error_message)
            return
        for limit in self._by_gate("amount"):
            used = limit.kind.used(self.state)
            if used is not None and limit.exceeded(used):
                self.stop(ctx, limit, used, "critical_percent")
                return

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

    def before_request(self, event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> None:
        if event.purpose == "agent":
            for limit in self._by_gate("turns"):
                used = float(len(self.ledger.turns))
                if used >= limit.limit:
                    self.stop(ctx, limit, used, "max_turns")
                    return
        for limit in self._by_gate("amount"):
            used_now = limit.kind.used(self.state)
            if used_now is None:
                continue
            used = used_now
            next_at_least = 0.0
            if limit.name == "effective_tokens" and event.purpose == "agent":
                next_at_least = min_next_request_et(
                    self.multipliers.get(event.model.id),
                    self.last_agent_usage,
                    _new_tokens(ctx, self.last_agent_usage is None),
                )
            if limit.exceeded(used):
                self.stop(ctx, limit, used, "critical_percent")
                return
            if limit.would_cross(used, next_at_least):
                self.stop(ctx, limit, used, "next_request")
                return

    # ---- tool calls and turns ----------------------------------------------------------------

    def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
        for limit in self._by_gate("tool_calls"):
            used = float(self.ledger.tool_calls)
            if used >= limit.limit:
                self.stop(ctx, limit, used, "max_tool_calls")
                reason = f"Blocked: the run's tool-call budget ({limit.limit:g}) is used up"
                return ToolCallResult(block=True, reason=reason)
        self.ledger.record_tool_call()
        return None

    def on_tool_end(self, event: Any, ctx: ExtensionContext) -> None:
        self.ledger.record_tool_end(event.tool_name, event.is_error, event.duration_ms)

    def on_turn_end(self, event: TurnEnd, ctx: ExtensionContext) -> None:
        self.ledger.close_turn(len(event.tool_results), max(self.state.record.current_prompt, 1))


def setup(api: ExtensionAPI) -> None:
    tracker = CostTracker(api)
    api.on("request_end", tracker.on_request_end)
    api.on("before_provider_request", tracker.before_request)
    api.on("tool_call", tracker.on_tool_call)
    api.on("tool_execution_end", tracker.on_tool_end)
    api.on("turn_end", tracker.on_turn_end)


def _new_tokens(ctx: ExtensionContext, first: bool) -> int:
    """Estimated tokens the next request adds: everything after the last answer (or all)."""
    messages = ctx.session.messages
    if first:
        return messages_tokens(messages) + len(ctx.session.system_prompt) // 4
    last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1)
    return messages_tokens(messages[last + 1 :])
