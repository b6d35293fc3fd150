"""Built-in extension 5: observability.

Writes the JSONL event stream (stderr) and the per-turn human line.
"""

from __future__ import annotations

from typing import Any

from aw_action.agent.events import AgentEvent, HarnessEvent, ToolExecutionEnd, TurnEnd
from aw_action.extensions.api import ExtensionAPI, ExtensionContext


def human_turn_line(turn: int, input_tokens: int, output_tokens: int, cumulative: int, cost: float | None) -> str:
    cost_text = "cost unknown" if cost is None else f"${cost:.4f}"
    return (
        f"> **Turn {turn}**: {input_tokens:,} in / {output_tokens:,} out | "
        f"cumulative {cumulative:,} tokens ({cost_text})"
    )


def setup(api: ExtensionAPI) -> None:
    state = api.state
    jsonl = api.services.jsonl

    def on_start(event: Any, ctx: ExtensionContext) -> None:
        jsonl.event("session_start", model=state.model, session_id=ctx.session.session_id)

    def on_event(event: AgentEvent, ctx: ExtensionContext) -> None:
        if isinstance(event, TurnEnd) and state.turns:
            t = state.turns[-1]
            jsonl.event(
                "turn_end",
                turn=t.turn,
                input_tokens=t.usage.input + t.usage.cache_read + t.usage.cache_write,
                output_tokens=t.usage.output + t.usage.reasoning,
                cumulative_tokens=t.cumulative_tokens,
                cumulative_cost_usd=t.cumulative_cost_usd,
                model=state.model,
            )
            jsonl.line(
                human_turn_line(
                    t.turn,
                    t.usage.input + t.usage.cache_read + t.usage.cache_write,
                    t.usage.output + t.usage.reasoning,
                    t.cumulative_tokens,
                    t.cumulative_cost_usd,
                )
            )
        elif isinstance(event, ToolExecutionEnd):
            jsonl.event(
                "tool_end",
                tool=event.tool_name,
                tool_call_id=event.tool_call_id,
                is_error=event.is_error,
                duration_ms=event.duration_ms,
            )
        elif isinstance(event, HarnessEvent):
            jsonl.event(event.name, **event.fields)

    def on_shutdown(event: Any, ctx: ExtensionContext) -> None:
        jsonl.event(
            "session_end",
            stop_reason=state.stop_reason,
            turns=len(state.turns),
            tokens=state.totals.total,
            input_tokens=state.totals.input,
            output_tokens=state.totals.output,
            cache_read_tokens=state.totals.cache_read,
            cache_write_tokens=state.totals.cache_write,
            effective_tokens=round(state.effective_tokens, 2),
            cost_usd=state.cost_usd,
            elapsed_ms=state.elapsed_ms,
        )

    api.on("session_start", on_start)
    api.on("*", on_event)
    api.on("session_shutdown", on_shutdown)
