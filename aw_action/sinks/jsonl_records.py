"""Field builders for the stderr JSONL events and the per-turn human line (spec §8.5.1, §8.5.4).

Token figures in ``turn_end`` follow the spec's example: ``input_tokens`` counts every prompt
token (uncached + cache read + cache write), ``output_tokens`` every generated one (output +
reasoning). Message events carry role and shape only, never text, except in gh-aw mode, where
the stream is also the record gh-aw's log parser reads (``agent-stdio.log``; ``gh-aw/aw-harness.md``
``log-parser``): there ``tool_start`` carries the call's ``input`` (a bash command, a file path, other
arguments), ``tool_end`` the head of its ``output``, and an assistant ``message_end`` its ``text``,
each capped (``GH_AW_*_CHARS``; the transcript holds them whole) and redacted by the sink.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aw_action.agent.events import AnyMessage
from aw_action.ai.inert_line import tool_label
from aw_action.ai.types import AssistantMessage
from aw_action.run import human
from aw_action.run.ledger import RequestRecord, TurnRecord

if TYPE_CHECKING:
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
    tools: Sequence[tuple[str, bool]] = (),
) -> str:
    """``Turn N: bash ×2 (1 failed) | X in / Y out raw tokens, E effective | cumulative Z raw,
    F effective tokens (of L) | $C``, plain text. ``tools``: the turn's calls as ``(name,
    failed)``. Raw counts are what the API reported; effective tokens are the weighted count the
    budget uses (gh-aw's weights x the model's multiplier)."""
    of = f" (of {effective_limit:,.0f})" if effective_limit else ""
    return (
        f"Turn {turn}: {tool_counts(tools)} | {input_tokens:,} in / {output_tokens:,} out raw tokens, "
        f"{effective:,.0f} effective | cumulative {cumulative:,} raw, {cumulative_effective:,.0f} effective "
        f"tokens{of} | {human.usd(cost)}"
    )


def tool_counts(tools: Sequence[tuple[str, bool]]) -> str:
    """``bash ×2, read (1 failed)``, or ``no tool call``."""
    if not tools:
        return "no tool call"
    counts = Counter(name for name, _ in tools)
    names = ", ".join(f"{tool_label(name)} ×{n}" if n > 1 else tool_label(name) for name, n in counts.items())
    failed = sum(1 for _, bad in tools if bad)
    return names + (f" ({failed} failed)" if failed else "")


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


GH_AW_TEXT_CHARS = 2_000
"""An assistant message's text on stderr in gh-aw mode."""
GH_AW_INPUT_CHARS = 1_000
"""Each string in a tool call's ``input`` (a command, a path, an argument)."""
GH_AW_OUTPUT_CHARS = 500
"""The head of a tool result's text."""
GH_AW_INPUT_KEYS = 8
"""Arguments shown per call; a file tool's ``content``/``old_text``/``new_text`` are never shown."""
_BULK_ARGUMENTS = frozenset({"content", "old_text", "new_text", "edits"})


def capped(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}…"


def _bounded(value: Any, limit: int) -> Any:
    if isinstance(value, str):
        return capped(value, limit)
    if value is None or isinstance(value, bool | int | float):
        return value
    return capped(json.dumps(value, ensure_ascii=False, default=str), limit)


def tool_input(args: Mapping[str, Any]) -> dict[str, Any]:
    """What the call was asked to do, bounded: its scalar arguments (``command``, ``path``, ...),
    each string capped at ``GH_AW_INPUT_CHARS``; the bulk text of a write or edit is left out."""
    shown = [(str(k), v) for k, v in args.items() if k not in _BULK_ARGUMENTS][:GH_AW_INPUT_KEYS]
    return {k: _bounded(v, GH_AW_INPUT_CHARS) for k, v in shown}


def tool_output(text: str) -> dict[str, Any]:
    """The head of a tool result (``output``) and its full length (``output_chars``)."""
    return {"output": capped(text, GH_AW_OUTPUT_CHARS), "output_chars": len(text)}


def message(msg: AnyMessage, ended: bool, *, with_text: bool = False) -> dict[str, Any]:
    """``with_text`` (gh-aw mode): an ended assistant message also carries its text, capped."""
    fields: dict[str, Any] = {"role": msg.role}
    if msg.role == "assistant" and ended:
        fields.update(stop_reason=msg.stop_reason, tool_calls=len(msg.tool_calls))
        if with_text and isinstance(msg, AssistantMessage) and msg.text:
            fields.update(text=capped(msg.text, GH_AW_TEXT_CHARS), text_chars=len(msg.text))
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
