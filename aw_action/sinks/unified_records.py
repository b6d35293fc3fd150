"""``data`` payloads of the unified-session records the harness writes (camelCase, as gh-aw's
schema defines them), plus ``harness.run``, the harness's own closing record that audit reads
for the stop reason, limits and degraded sinks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.run.state import RunState
from aw_action.sinks.summary import Outcome


def workflow_info(requested_model: str, env: Mapping[str, str]) -> dict[str, Any]:
    return {
        "engineId": "aw",
        "requestedModel": requested_model,
        "workflow": env.get("GITHUB_WORKFLOW"),
        "repository": env.get("GITHUB_REPOSITORY"),
        "runId": env.get("GITHUB_RUN_ID"),
    }


def tool_complete(call_id: str, name: str, is_error: bool, duration_ms: int) -> dict[str, Any]:
    return {
        "toolCallId": call_id,
        "toolName": name,
        "success": not is_error,
        "isError": is_error,
        "durationMs": duration_ms,
    }


def closing(
    state: RunState, outcome: Outcome, error: str | None, session_id: str, limits: Mapping[str, float]
) -> list[tuple[str, dict[str, Any]]]:
    """``session.result``, ``agent.execution`` and ``harness.run``, in that order."""
    t = state.totals
    result: dict[str, Any] = {
        "sessionId": session_id,
        "model": state.model,
        "numTurns": len(state.turns),
        "durationMs": state.elapsed_ms,
        "status": outcome.conclusion,
        "sourceType": "result",
        "errors": [error] if error else [],
        "usage": {
            "totalTokens": t.total,
            "inputTokens": t.input,
            "outputTokens": t.output,
            "reasoningOutputTokens": t.reasoning,
            "cacheReadInputTokens": t.cache_read,
            "cacheCreationInputTokens": t.cache_write,
            "inputTokensIncludeCache": False,
        },
    }
    if state.cost_usd is not None:
        result["totalCostUsd"] = state.cost_usd
    failed = outcome.exit_code != 0
    execution = {
        "categories": [outcome.stop_reason] if failed else [],
        "errorCodes": [],
        "errorTypes": [],
        "exitCode": outcome.exit_code,
    }
    run = {
        "model": state.model,
        "conclusion": outcome.conclusion,
        "stopReason": outcome.stop_reason,
        "exitCode": outcome.exit_code,
        "durationMs": state.elapsed_ms,
        "effectiveTokens": round(state.effective_tokens, 2),
        "costUsd": state.cost_usd,
        "aiCredits": state.ai_credits,
        "limits": dict(limits),
        "budgetExceeded": state.budget_exceeded,
        "degraded": [{"subsystem": d.subsystem, "detail": d.detail, "hint": d.hint} for d in state.degraded],
    }
    return [("session.result", result), ("agent.execution", execution), ("harness.run", run)]
