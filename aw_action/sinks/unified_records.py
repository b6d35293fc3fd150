"""``data`` payloads of the unified-session records the harness writes (camelCase, as gh-aw's
schema defines them), plus ``harness.run``, the harness's own closing record that audit reads
for the stop reason, limits and degraded sinks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aw_action.environment.runner import RunnerFacts
from aw_action.run.state import RunState

if TYPE_CHECKING:
    from aw_action.run.result import ResultRecord


def workflow_info(requested_model: str, runner: RunnerFacts) -> dict[str, Any]:
    return {
        "engineId": "aw",
        "requestedModel": requested_model,
        "workflow": runner.workflow or None,
        "repository": runner.repository or None,
        "runId": runner.run_id or None,
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
    result: ResultRecord,
    state: RunState,
    session_id: str,
    limits: Mapping[str, float],
    explanation: str | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """``session.result``, ``agent.execution`` and ``harness.run``, in that order. ``explanation``
    is why the run ended, on one line (``run/explain.py``'s ``Explanation.plain()``), which
    ``aw-harness report`` shows beside a run that failed or stopped. A run that continued an
    earlier conversation says which in ``harness.run``'s ``continues`` (the session, the run, how
    many runs came before and what they cost together)."""
    t = result.tokens
    session: dict[str, Any] = {
        "sessionId": session_id,
        "model": result.model,
        "numTurns": result.turns,
        "durationMs": result.duration_ms,
        "status": result.conclusion,
        "sourceType": "result",
        "errors": [result.error] if result.error else [],
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
    if result.cost_usd is not None:
        session["totalCostUsd"] = result.cost_usd
    failed = result.exit_code != 0
    execution = {
        "categories": [result.stop_reason] if failed else [],
        "errorCodes": [],
        "errorTypes": [],
        "exitCode": result.exit_code,
    }
    run = {
        "model": result.model,
        "conclusion": result.conclusion,
        "stopReason": result.stop_reason,
        "exitCode": result.exit_code,
        "durationMs": result.duration_ms,
        "effectiveTokens": t.effective,
        "costUsd": result.cost_usd,
        "aiCredits": result.ai_credits,
        "toolCalls": result.tool_calls,
        "limits": dict(limits),
        "budgetExceeded": state.journal.budget_exceeded,
        "degraded": [{"subsystem": d.subsystem, "detail": d.detail, "hint": d.hint} for d in state.journal.degraded],
    }
    if explanation is not None:
        run["explanation"] = explanation
    continues = state.record.continues
    if continues is not None:  # the conversation this run went on from (docs/continue.md)
        earlier = continues.get("run") or {}
        run["continues"] = {
            "sessionId": continues.get("session_id"),
            "runId": earlier.get("run_id"),
            "repository": earlier.get("repository"),
            "runs": continues.get("runs"),
            "costUsd": continues.get("cost_usd"),
        }
    return [("session.result", session), ("agent.execution", execution), ("harness.run", run)]
