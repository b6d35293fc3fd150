"""Built-in extension 2: cost tracker (the usage ledger).

Counts every model request once: a ``RequestRecord`` per ``request_end`` and a ``TurnRecord``
per ``turn_end`` in ``RunState``, with effective tokens and cost. Every sink reads these records.
"""

from __future__ import annotations

from aw_action.agent.events import RequestEnd, TurnEnd
from aw_action.ai.types import Usage
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.state import RequestRecord, TurnRecord, utc_iso

WEIGHTS = {"input": 1.0, "cache_read": 0.1, "output": 4.0, "reasoning": 4.0, "cache_write": 1.0}
"""gh-aw effective-token weights per token class."""


def model_multiplier(model: str) -> float:
    return 1.0


def effective_tokens(usage: Usage, model: str) -> float:
    base = sum(weight * float(getattr(usage, name)) for name, weight in WEIGHTS.items())
    return model_multiplier(model) * base


def setup(api: ExtensionAPI) -> None:
    state = api.state
    turn_start_request = 0

    def on_request_end(event: RequestEnd, ctx: ExtensionContext) -> None:
        msg = event.message
        et = effective_tokens(msg.usage, msg.model)
        status = "ok" if msg.stop_reason not in ("error", "aborted") else msg.stop_reason
        record = RequestRecord(
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
            cost_usd=msg.cost_usd,
            ai_credits=None if msg.cost_usd is None else msg.cost_usd / 0.01,
            turn=len(state.turns) + 1,
            attempts=event.attempts,
            steering=event.steering,
            error=msg.error_message,
        )
        state.requests.append(record)
        state.totals = state.totals + msg.usage
        state.effective_tokens += et
        if state.cost_usd is not None:
            state.cost_usd = None if msg.cost_usd is None else state.cost_usd + msg.cost_usd

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
    api.on("turn_end", on_turn_end)
