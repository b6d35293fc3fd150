"""Built-in extension 2: cost tracker (the usage ledger and the budget gates).

Counts every model request once: a ``RequestRecord`` per ``request_end`` and a ``TurnRecord`` per
``turn_end`` in ``RunState``, with effective tokens (``budget.py``) and cost. Every sink reads
these records.

Budgets (``harness.budget``; ``max-ai-credits`` also from ``GH_AW_MAX_AI_CREDITS``) are published
in ``state.limits`` but enforced from this extension's own copy, so nothing else can loosen them.
Gates, spec §8.2 / §11.2.2:

- after each request: once effective tokens or AI credits reach ``budget-critical-percent`` of
  their limit the session is aborted (``budget_exceeded``); the loop then discards the in-flight
  turn, so no tool of that response runs;
- before each request: refused (same abort) when a budget is already past its abort point, or
  when even the cheapest possible next request would cross the limit itself;
- ``max-turns``: the request that would start turn N+1 is refused (stop reason ``max_turns``).

Each abort emits one ``budget_exceeded`` record ``{budget, reason: "hard_limit",
forced_termination: true, used, limit, ...}`` and fills ``state.budget_exceeded``.
"""

from __future__ import annotations

from typing import Any

from aw_action.agent.compaction import messages_tokens
from aw_action.agent.events import BeforeProviderRequestEvent, RequestEnd, TurnEnd
from aw_action.ai.types import AssistantMessage, Usage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.run.effective_tokens import (
    MAX_CREDITS_ENV,
    MULTIPLIER_ENV,
    Limit,
    Multipliers,
    credits,
    effective_tokens,
    limit_from_env,
    min_next_request_et,
    parse_overrides,
)
from aw_action.run.state import RequestRecord, RunState, TurnRecord, utc_iso

UNPRICED_HINT = "set harness.budget.max-effective-tokens, which does not depend on prices"


def _multipliers(api: ExtensionAPI) -> Multipliers:
    try:
        return Multipliers(parse_overrides(api.env.get(MULTIPLIER_ENV)))
    except ValueError as exc:
        api.warn(f"{MULTIPLIER_ENV} ignored: {exc}")
        return Multipliers()


def _credit_limit(api: ExtensionAPI) -> float | None:
    configured = api.config.harness.budget.max_ai_credits
    if configured is not None:
        return configured
    try:
        return limit_from_env(api.env.get(MAX_CREDITS_ENV))
    except ValueError as exc:
        api.warn(f"{MAX_CREDITS_ENV} ignored: {exc}")
        return None


def budget_limits(api: ExtensionAPI) -> dict[str, Limit]:
    """The configured budgets by ``RunState.limits`` name."""
    budget = api.config.harness.budget
    critical = api.config.harness.steering.budget_critical_percent
    limits: dict[str, Limit] = {}
    if budget.max_effective_tokens is not None:
        limits["effective_tokens"] = Limit("effective_tokens", budget.max_effective_tokens, critical)
    credit_limit = _credit_limit(api)
    if credit_limit is not None:
        limits["ai_credits"] = Limit("ai_credits", credit_limit, critical)
    if budget.max_turns is not None:
        limits["turns"] = Limit("turns", float(budget.max_turns))
    return limits


def used_amount(state: RunState, name: str) -> float | None:
    if name == "effective_tokens":
        return state.effective_tokens
    if name == "ai_credits":
        return state.ai_credits
    return float(len(state.turns))


def setup(api: ExtensionAPI) -> None:
    state = api.state
    multipliers = _multipliers(api)
    limits = budget_limits(api)
    state.limits.update({name: lim.limit for name, lim in limits.items()})
    turn_start_request = 0
    last_agent_usage: Usage | None = None
    warned_models: set[str] = set()

    def multiplier_for(msg: AssistantMessage, ctx: ExtensionContext) -> float:
        found = multipliers.lookup(msg.model)
        if found is None and msg.model not in warned_models and msg.provider != "faux":
            warned_models.add(msg.model)
            ctx.warn(
                f"no effective-token multiplier for model {msg.model!r}; using 1.0", code="unknown_model_multiplier"
            )
        return 1.0 if found is None else found

    def exceed(ctx: ExtensionContext, limit: Limit, used: float, trigger: str) -> None:
        if state.budget_exceeded is None:
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
            state.budget_exceeded = record
            ctx.emit("budget_exceeded", **record)
        ctx.abort("max_turns" if limit.name == "turns" else "budget_exceeded")

    def check_after_request(ctx: ExtensionContext) -> None:
        for name in ("effective_tokens", "ai_credits"):
            limit = limits.get(name)
            used = used_amount(state, name)
            if limit is not None and used is not None and limit.exceeded(used):
                exceed(ctx, limit, used, "critical_percent")
                return

    def on_request_end(event: RequestEnd, ctx: ExtensionContext) -> None:
        nonlocal last_agent_usage
        msg = event.message
        et = effective_tokens(msg.usage, multiplier_for(msg, ctx))
        cost = 0.0 if msg.cost_usd is None and msg.usage.total == 0 else msg.cost_usd  # nothing used, nothing owed
        status = "ok" if msg.stop_reason not in ("error", "aborted") else msg.stop_reason
        state.requests.append(
            RequestRecord(
                timestamp=utc_iso(),
                request_id=msg.request_id or msg.response_id or f"req-{len(state.requests) + 1}",
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
                turn=len(state.turns) + 1,
                attempts=event.attempts,
                steering=event.steering,
                error=msg.error_message,
            )
        )
        state.totals = state.totals + msg.usage
        state.effective_tokens += et
        if state.cost_usd is not None:
            state.cost_usd = None if cost is None else state.cost_usd + cost
            if state.cost_usd is None and "ai_credits" in limits:
                detail = f"the price of model {msg.model!r} is unknown, so max-ai-credits cannot be enforced"
                ctx.warn(detail)
                state.degrade("budget", detail, UNPRICED_HINT)
        if event.purpose == "agent" and status == "ok":
            last_agent_usage = msg.usage
        check_after_request(ctx)

    def before_request(event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> None:
        turns = limits.get("turns")
        if event.purpose == "agent" and turns is not None and len(state.turns) >= turns.limit:
            exceed(ctx, turns, float(len(state.turns)), "max_turns")
            return
        for name in ("effective_tokens", "ai_credits"):
            limit = limits.get(name)
            used = used_amount(state, name)
            if limit is None or used is None:
                continue
            next_at_least = 0.0
            if name == "effective_tokens" and event.purpose == "agent":
                next_at_least = min_next_request_et(
                    multipliers.get(event.model.id), last_agent_usage, _new_tokens(ctx, last_agent_usage is None)
                )
            if limit.exceeded(used):
                exceed(ctx, limit, used, "critical_percent")
                return
            if limit.would_cross(used, next_at_least):
                exceed(ctx, limit, used, "next_request")
                return

    def on_turn_end(event: TurnEnd, ctx: ExtensionContext) -> None:
        nonlocal turn_start_request
        records = state.requests[turn_start_request:]
        turn_start_request = len(state.requests)
        usage = Usage()
        for r in records:
            usage = usage + r.usage
        costs = [r.cost_usd for r in records]
        cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
        state.turns.append(
            TurnRecord(
                turn=len(state.turns) + 1,
                usage=usage,
                effective_tokens=sum(r.effective_tokens for r in records),
                cost_usd=cost,
                cumulative_tokens=state.totals.total,
                cumulative_effective_tokens=state.effective_tokens,
                cumulative_cost_usd=state.cost_usd,
                tool_calls=len(event.tool_results),
                ended_at=utc_iso(),
            )
        )

    api.on("request_end", on_request_end)
    api.on("before_provider_request", before_request)
    api.on("turn_end", on_turn_end)


def _new_tokens(ctx: ExtensionContext, first: bool) -> int:
    """Estimated tokens the next request adds: everything after the last answer (or all)."""
    messages = ctx.session.messages
    if first:
        return messages_tokens(messages) + len(ctx.session.system_prompt) // 4
    last = max((i for i, m in enumerate(messages) if isinstance(m, AssistantMessage)), default=-1)
    return messages_tokens(messages[last + 1 :])
