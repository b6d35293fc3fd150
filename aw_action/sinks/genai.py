"""Span and resource attributes: OTel GenAI semantic conventions plus gh-aw's GitHub names.

Token attributes follow the convention's definitions, which differ from ``Usage``'s:
``gen_ai.usage.input_tokens`` *includes* cached tokens (uncached + cache read + cache write) and
``gen_ai.usage.output_tokens`` includes reasoning tokens. Cost and budget figures use the
``aw.*`` namespace. No attribute carries message, tool-argument or tool-output text.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from aw_action.ai.types import Usage
from aw_action.environment.runner import RunnerFacts
from aw_action.run.ledger import RequestRecord
from aw_action.run.state import RunState

AGENT_NAME = "aw-harness"
GITHUB_RESOURCE: dict[str, tuple[str, ...]] = {
    "repository": ("github.repository", "gh-aw.repository"),
    "run_id": ("github.run_id", "gh-aw.run.id"),
    "run_attempt": ("github.run_attempt",),
    "workflow": ("github.workflow", "gh-aw.workflow.name"),
    "job": ("github.job", "gh-aw.job.name"),
}
"""The runner's facts (``RunnerFacts`` fields) a span's resource carries, and under which names."""


def _package_version() -> str:
    try:
        return version("aw-harness")
    except PackageNotFoundError:
        return "0"


def resource_attributes(runner: RunnerFacts) -> dict[str, str]:
    attrs = {"service.name": AGENT_NAME, "service.version": _package_version(), "gh-aw.engine.id": "aw"}
    for fact, names in GITHUB_RESOURCE.items():
        value = getattr(runner, fact)
        if value:
            attrs.update(dict.fromkeys(names, value))
    return attrs


def usage_attributes(usage: Usage) -> dict[str, int]:
    return {
        "gen_ai.usage.input_tokens": usage.input + usage.cache_read + usage.cache_write,
        "gen_ai.usage.output_tokens": usage.output + usage.reasoning,
        "gen_ai.usage.cache_read.input_tokens": usage.cache_read,
        "gen_ai.usage.cache_creation.input_tokens": usage.cache_write,
        "gen_ai.usage.reasoning.output_tokens": usage.reasoning,
    }


def _money(cost_usd: float | None, credits: float | None, effective: float) -> dict[str, float]:
    out = {"aw.effective_tokens": round(effective, 2)}
    if cost_usd is not None:
        out["aw.cost_usd"] = cost_usd
    if credits is not None:
        out["aw.ai_credits"] = round(credits, 6)
    return out


def session_start_attributes(provider: str, model: str, session_id: str) -> dict[str, Any]:
    return {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": AGENT_NAME,
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
        "gen_ai.conversation.id": session_id,
    }


def session_end_attributes(state: RunState, stop_reason: str, exit_code: int) -> dict[str, Any]:
    return {
        **usage_attributes(state.ledger.totals),
        **_money(state.ledger.cost_usd, state.ledger.ai_credits, state.ledger.effective_tokens),
        "aw.turns": len(state.ledger.turns),
        "aw.requests": len(state.ledger.requests),
        "aw.stop_reason": stop_reason,
        "aw.exit_code": exit_code,
    }


def chat_attributes(record: RequestRecord, request_model: str, conversation_id: str) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": record.provider,
        "gen_ai.request.model": request_model,
        "gen_ai.response.model": record.model,
        "gen_ai.response.id": record.request_id,
        "gen_ai.conversation.id": conversation_id,
        "gen_ai.request.stream": record.streaming,
        **usage_attributes(record.usage),
        **_money(record.cost_usd, record.ai_credits, record.effective_tokens),
        "aw.purpose": record.purpose,
        "aw.turn": record.turn,
        "aw.attempts": record.attempts,
        "aw.outcome": record.status,
    }
    if record.steering:
        attrs["aw.steering.type"] = str(record.steering.get("type"))
        attrs["aw.steering.threshold"] = int(record.steering.get("threshold") or 0)
    if record.status != "ok":
        attrs["error.type"] = record.status
    return attrs


def tool_attributes(name: str, call_id: str, is_error: bool) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "function",
    }
    if is_error:
        attrs["error.type"] = "tool_error"
    return attrs
