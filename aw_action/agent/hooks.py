"""The seam between the agent core and whatever listens to it.

The core calls these methods at fixed points of the loop; the extension runner implements them
(binding each handler to its extension context). ``NullHooks`` runs the core with no listeners.

Contracts: none of these methods may raise for a handler's error (the implementation isolates
handler errors); ``tool_call`` blocks the call when a handler raises.
"""

from __future__ import annotations

from typing import Any, Protocol

from aw_action.agent.events import (
    AgentEvent,
    AnyMessage,
    BeforeProviderRequestEvent,
    ProviderRequestResult,
    ToolCallEvent,
    ToolCallResult,
    ToolResultEvent,
)
from aw_action.ai.types import Model, ToolResultMessage


class SessionHooks(Protocol):
    async def emit(self, event: AgentEvent) -> None:
        """Deliver an event to every listener, awaited in registration order."""

    def listens(self, event_type: str) -> bool:
        """Whether anyone receives events of this type; False: the core need not build them
        (the streaming deltas, at token rate, are built only for a listener)."""

    async def context(self, messages: list[AnyMessage]) -> list[AnyMessage]:
        """Chain ``context`` handlers over a copy of the messages for one model call."""

    async def tool_call(self, event: ToolCallEvent) -> ToolCallResult:
        """First ``block`` wins; a raising handler blocks with its error text."""

    async def tool_result(self, event: ToolResultEvent) -> ToolResultMessage:
        """Chain ``tool_result`` patches; returns the (possibly replaced) result."""

    async def before_provider_request(self, event: BeforeProviderRequestEvent) -> ProviderRequestResult:
        """Chain option patches for one request; collect the notice it carries, if any."""

    async def before_provider_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any]:
        """Chain payload replacements for one HTTP attempt."""

    async def after_provider_response(self, status: int, headers: dict[str, str]) -> None:
        """Observe the response status and headers before the body is read."""


class NullHooks:
    """No listeners: every hook passes its input through."""

    async def emit(self, event: AgentEvent) -> None:
        return None

    def listens(self, event_type: str) -> bool:
        return True  # a subclass that overrides ``emit`` hears every event

    async def context(self, messages: list[AnyMessage]) -> list[AnyMessage]:
        return messages

    async def tool_call(self, event: ToolCallEvent) -> ToolCallResult:
        return ToolCallResult()

    async def tool_result(self, event: ToolResultEvent) -> ToolResultMessage:
        return event.result

    async def before_provider_request(self, event: BeforeProviderRequestEvent) -> ProviderRequestResult:
        return ProviderRequestResult(options=event.options)

    async def before_provider_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any]:
        return payload

    async def after_provider_response(self, status: int, headers: dict[str, str]) -> None:
        return None
