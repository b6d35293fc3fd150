"""Field builders for the stderr JSONL events and the per-turn human line (spec §8.5.1, §8.5.4).

Token figures in ``turn_end`` follow the spec's example: ``input_tokens`` counts every prompt
token (uncached + cache read + cache write), ``output_tokens`` every generated one (output +
reasoning). Message events carry role and shape only, never text.
"""

from __future__ import annotations

from typing import Any

from aw_action.agent.events import AnyMessage
from aw_action.run.ledger import RequestRecord, TurnRecord
from aw_action.run.result import ResultRecord


def human_turn_line(
    turn: int,
    input_tokens: int,
    output_tokens: int,
    cumulative: int,
    cost: float | None,
    *,
    effective: float = 0.0,
    cumulative_effective: float = 0.0,
    effective_limit: float | None = None,
) -> str:
    """``> **Turn N**: X in / Y out raw tokens, E effective | cumulative Z raw, F effective
    tokens (of L) | $C`` (a GFM blockquote). Raw counts are what the API reported; effective
    tokens are the weighted count the budget uses (gh-aw's weights x the model's multiplier)."""
    cost_text = "cost unknown" if cost is None else f"${cost:.4f}"
    of = f" (of {effective_limit:,.0f})" if effective_limit else ""
    return (
        f"> **Turn {turn}**: {input_tokens:,} in / {output_tokens:,} out raw tokens, {effective:,.0f} effective | "
        f"cumulative {cumulative:,} raw, {cumulative_effective:,.0f} effective tokens{of} | {cost_text}"
    )


def turn_end(t: TurnRecord, model: str, stop_reason: str | None = None) -> dict[str, Any]:
    """A ``turn_end`` record; ``stop_reason`` only on a turn cut short (``agent.events.TurnEnd``)."""
    fields: dict[str, Any] = {
        "turn": t.turn,
        "input_tokens": t.usage.input + t.usage.cache_read + t.usage.cache_write,
        "output_tokens": t.usage.output + t.usage.reasoning,
        "cumulative_tokens": t.cumulative_tokens,
        "cumulative_cost_usd": t.cumulative_cost_usd,
        "model": model,
        "cumulative_effective_tokens": round(t.cumulative_effective_tokens, 2),
    }
    if stop_reason is not None:
        fields["stop_reason"] = stop_reason
    return fields


def request_end(record: RequestRecord, http_status: int | None) -> dict[str, Any]:
    u = record.usage
    return {
        "request_id": record.request_id,
        "model": record.model,
        "purpose": record.purpose,
        "status": record.status,
        "http_status": http_status,
        "input_tokens": u.input,
        "output_tokens": u.output,
        "cache_read_tokens": u.cache_read,
        "cache_write_tokens": u.cache_write,
        "reasoning_tokens": u.reasoning,
        "duration_ms": record.duration_ms,
        "effective_tokens": round(record.effective_tokens, 2),
        "cost_usd": record.cost_usd,
        "steering": record.steering,
    }


def message(msg: AnyMessage, ended: bool) -> dict[str, Any]:
    fields: dict[str, Any] = {"role": msg.role}
    if msg.role == "assistant" and ended:
        fields.update(stop_reason=msg.stop_reason, tool_calls=len(msg.tool_calls))
    elif msg.role == "user":
        fields["source"] = msg.source
    return fields


def session_end(result: ResultRecord) -> dict[str, Any]:
    """The last JSONL line: the run's result record, flattened (spec §8.5.1)."""
    tokens = result.tokens
    return {
        "stop_reason": result.stop_reason,
        "conclusion": result.conclusion,
        "exit_code": result.exit_code,
        "turns": result.turns,
        "tool_calls": result.tool_calls,
        "tokens": tokens.total,
        "input_tokens": tokens.input,
        "output_tokens": tokens.output,
        "cache_read_tokens": tokens.cache_read,
        "cache_write_tokens": tokens.cache_write,
        "reasoning_tokens": tokens.reasoning,
        "effective_tokens": tokens.effective,
        "cost_usd": result.cost_usd,
        "ai_credits": result.ai_credits,
        "elapsed_ms": result.duration_ms,
        "degraded": list(result.degraded),
    }
