"""ExtensionRunner: dispatches events and hooks to extension handlers (the core's SessionHooks).

Rules: handlers run awaited, one at a time, in load order then registration order. A handler
that raises is isolated: a ``warning`` record names the extension, the event and the error, and
the next handler runs; except ``tool_call``, where a raising handler blocks that call. Results
chain where they transform (``context``, ``tool_result``, the provider hooks); for ``tool_call``
the first block wins. Harness records posted by handlers are dispatched after the current
event, in order, so a record is never lost and never reorders the event that caused it. Once
the run is aborted, an async user handler gets ``loop.ABORT_GRACE_S`` to finish, then it is
cancelled (an isolated error): a handler that ignores the abort cannot hold the run past its deadline.
"""

from __future__ import annotations

import dataclasses
import inspect
from typing import TYPE_CHECKING, Any

from aw_action.agent.events import (
    AfterProviderResponseEvent,
    AgentEvent,
    AnyMessage,
    BeforeProviderPayloadEvent,
    BeforeProviderRequestEvent,
    ContextEvent,
    ContextResult,
    HarnessEvent,
    ProviderRequestResult,
    ToolCallEvent,
    ToolCallResult,
    ToolResultEvent,
    ToolResultPatch,
)
from aw_action.agent.loop import within_abort_grace
from aw_action.ai.types import Model, TextContent, ToolResultMessage
from aw_action.extensions.api import ExtensionContext, HostServices
from aw_action.extensions.registry import Registered

if TYPE_CHECKING:
    from aw_action.agent.session import AgentSession


class ExtensionRunner:
    def __init__(self, services: HostServices) -> None:
        self._s = services
        self._outbox: list[HarnessEvent] = []
        self._draining = False
        self._contexts: dict[str, ExtensionContext] = {}
        self.session: AgentSession | None = None
        services.state.journal.announce = self._announce_warning

    def _announce_warning(self, message: str, fields: dict[str, Any]) -> None:
        """The journal's warnings reach the run's records as harness ``warning`` records."""
        self.post(HarnessEvent("warning", {"message": message, **fields}))

    def bind(self, session: AgentSession) -> None:
        self.session = session

    def post(self, event: HarnessEvent) -> None:
        self._outbox.append(event)

    def _ctx(self, extension: str) -> ExtensionContext:
        if self.session is None:
            raise RuntimeError("runner is not bound to a session")
        ctx = self._contexts.get(extension)
        if ctx is None:
            ctx = self._contexts[extension] = ExtensionContext(extension, self._s, self.session)
        return ctx

    def _handlers(self, name: str) -> list[Registered]:
        return self._s.registry.handlers_for(name)

    async def _call(self, reg: Registered, name: str, event: Any) -> tuple[bool, Any]:
        """Call one handler; returns (ok, result). Errors become a warning record."""
        try:
            ctx = self._ctx(reg.extension)
            result = reg.handler(event, ctx)
            if inspect.isawaitable(result):  # a user handler may not outlast an abort by more than a grace
                result = await (result if reg.builtin else within_abort_grace(result, ctx.session.signal))
            return True, result
        except Exception as exc:
            message = f"extension {reg.extension} failed in {name} handler: {type(exc).__name__}: {exc}"
            self._s.state.journal.warn(message, extension=reg.extension, hook=name)
            return False, exc

    # ---- events ------------------------------------------------------------------------------

    async def emit(self, event: AgentEvent) -> None:
        await self._dispatch(event)
        await self.flush()

    async def _dispatch(self, event: AgentEvent) -> None:
        name = event.type
        for reg in self._s.registry.listeners(name):
            await self._call(reg, name, event)

    def listens(self, event_type: str) -> bool:
        return bool(self._s.registry.listeners(event_type))

    async def flush(self) -> None:
        """Dispatch queued harness records (and any records those handlers post)."""
        if self._draining:
            return
        self._draining = True
        try:
            while self._outbox:
                await self._dispatch(self._outbox.pop(0))
        finally:
            self._draining = False

    async def emit_named(self, name: str, event: Any) -> None:
        """Dispatch a lifecycle notification (``session_start``/``session_shutdown``)."""
        for reg in self._handlers(name):
            await self._call(reg, name, event)
        await self.flush()

    # ---- hooks -------------------------------------------------------------------------------

    async def context(self, messages: list[AnyMessage]) -> list[AnyMessage]:
        for reg in self._handlers("context"):
            ok, result = await self._call(reg, "context", ContextEvent(list(messages)))
            if ok and isinstance(result, ContextResult):
                messages = list(result.messages)
        await self.flush()
        return messages

    async def tool_call(self, event: ToolCallEvent) -> ToolCallResult:
        verdict = ToolCallResult()
        for reg in self._handlers("tool_call"):
            ok, result = await self._call(reg, "tool_call", event)
            if not ok:
                verdict = ToolCallResult(block=True, reason=f"Blocked: extension {reg.extension} failed: {result}")
                break
            if isinstance(result, ToolCallResult) and result.block:
                verdict = result
                break
        await self.flush()
        return verdict

    async def tool_result(self, event: ToolResultEvent) -> ToolResultMessage:
        current = event.result
        for reg in self._handlers("tool_result"):
            ok, result = await self._call(
                reg, "tool_result", ToolResultEvent(event.tool_call_id, event.tool_name, event.input, current)
            )
            if ok and isinstance(result, ToolResultPatch):
                current = current.model_copy(
                    update={
                        k: v
                        for k, v in {
                            "content": None if result.text is None else [TextContent(text=result.text)],
                            "details": result.details,
                            "is_error": result.is_error,
                        }.items()
                        if v is not None
                    }
                )
        await self.flush()
        return current

    async def before_provider_request(self, event: BeforeProviderRequestEvent) -> ProviderRequestResult:
        options = event.options
        steering: dict[str, Any] | None = None
        for reg in self._handlers("before_provider_request"):
            ok, result = await self._call(
                reg,
                "before_provider_request",
                dataclasses.replace(event, options=options),
            )
            if ok and isinstance(result, ProviderRequestResult):
                options = result.options or options
                steering = result.steering or steering
        await self.flush()
        return ProviderRequestResult(options=options, steering=steering)

    async def before_provider_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any]:
        """The payload hooks' chain over a copy of ``payload`` (the provider's, sent again on a
        retry, is never changed); no handler, no copy: ``payload`` itself comes back."""
        handlers = self._handlers("before_provider_payload")
        if not handlers:
            await self.flush()
            return payload
        payload = copy_json(payload)
        for reg in handlers:
            ok, result = await self._call(reg, "before_provider_payload", BeforeProviderPayloadEvent(payload, model))
            if ok and isinstance(result, dict):
                payload = result
        await self.flush()
        return payload

    async def after_provider_response(self, status: int, headers: dict[str, str]) -> None:
        for reg in self._handlers("after_provider_response"):
            await self._call(reg, "after_provider_response", AfterProviderResponseEvent(status, dict(headers)))
        await self.flush()


def copy_json(value: Any) -> Any:
    """A copy of JSON data's containers (dicts and lists; the values in them are immutable):
    what a handler may change in place without touching the original."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value
