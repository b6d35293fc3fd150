"""The step guard behind a session's hooks (``harness/step_runner.ContextStepRunner`` installs it).

``GuardedHooks`` wraps the session's hooks: it shows each assistant message's tool calls to the
current step's guard and asks the guard last, after every other ``tool_call`` handler, so the
arguments it approves are the arguments that run.
"""

from __future__ import annotations

from typing import Any

from aw_action.agent.events import (
    AgentEvent,
    AnyMessage,
    BeforeProviderRequestEvent,
    MessageEnd,
    ProviderRequestResult,
    ToolCallEvent,
    ToolCallResult,
    ToolResultEvent,
)
from aw_action.agent.hooks import SessionHooks
from aw_action.ai.types import AssistantMessage, Model, ToolResultMessage
from aw_action.workflows.authorize import StepGuard, authorize_tool_call


class GuardedHooks:
    """``SessionHooks`` that put ``guard`` (when set) behind every ``tool_call`` handler."""

    def __init__(self, inner: SessionHooks) -> None:
        self.inner = inner
        self.guard: StepGuard | None = None

    async def emit(self, event: AgentEvent) -> None:
        if self.guard is not None and isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            self.guard.observe_batch([(call.id, call.name) for call in event.message.tool_calls])
        await self.inner.emit(event)

    async def tool_call(self, event: ToolCallEvent) -> ToolCallResult:
        result = await self.inner.tool_call(event)
        if result.block or self.guard is None:
            return result
        decision = self.guard.authorize(event.tool_call_id, event.tool_name, event.input)
        return result if decision.allowed else ToolCallResult(block=True, reason=decision.reason)

    def why_unavailable(self, tool_name: str) -> str | None:
        """Why the running step has no tool ``tool_name`` (an MCP tool its ``permissions.mcp``
        does not grant, another tool its ``permissions.tools`` does not list: the step guard's
        words, naming the step), for the loop's "not found"; ``None`` outside a step and for a
        tool the step lists that the run does not have (it stays "not found")."""
        guard = self.guard
        if guard is None or tool_name in guard.step.permissions.tools:
            return None
        decision = authorize_tool_call(guard.step_id, guard.step, tool_name, {})
        return None if decision.allowed else decision.reason

    def listens(self, event_type: str) -> bool:
        return self.inner.listens(event_type)

    async def context(self, messages: list[AnyMessage]) -> list[AnyMessage]:
        return await self.inner.context(messages)

    async def tool_result(self, event: ToolResultEvent) -> ToolResultMessage:
        return await self.inner.tool_result(event)

    async def before_provider_request(self, event: BeforeProviderRequestEvent) -> ProviderRequestResult:
        return await self.inner.before_provider_request(event)

    async def before_provider_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any]:
        return await self.inner.before_provider_payload(payload, model)

    async def after_provider_response(self, status: int, headers: dict[str, str]) -> None:
        await self.inner.after_provider_response(status, headers)
