"""The turn loop, as plain functions over a ``LoopHost`` (the session implements it).

One run, event order (as Pi's agent loop):
``agent_start``, ``turn_start``, the pending user messages (``message_start``/``message_end``),
the assistant stream (``message_start``, ``message_update``*, ``message_end``), a ``request_end``
record, the tool calls (``tool_execution_start``/``_update``*/``_end``, then the tool-result
messages in the assistant's order), ``turn_end``; then a save point; then the next turn or
``agent_end``.

Drain points: steering is polled once before the first model call and after every completed
turn (after the whole tool batch, before the next request); follow-ups only when the agent would
otherwise stop. Abort: no model request and no tool call starts once the signal is set; a turn
that did not reach ``turn_end`` is discarded (its assistant message is not persisted).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from aw_action.agent.events import (
    AgentEnd,
    AgentStart,
    AnyMessage,
    BeforeProviderRequestEvent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    RequestEnd,
    ToolCallEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResultEvent,
    TurnEnd,
    TurnStart,
)
from aw_action.agent.hooks import SessionHooks
from aw_action.agent.tools import AgentTool, ToolContext, ToolResult, tool_spec
from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    Model,
    Provider,
    ProviderRequest,
    StreamDelta,
    StreamOptions,
    StreamStart,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

T = TypeVar("T")

ABORT_GRACE_S = 1.0
"""How long code the harness does not control (a tool, a user extension's handler) may keep
running once the run is aborted before it is cancelled and abandoned."""


async def _exit_as_error(awaitable: Awaitable[T]) -> T:
    try:
        return await awaitable
    except SystemExit as exc:  # raised in a task it would stop the event loop, and the run with it
        raise RuntimeError(f"called exit({exc.code})") from None


async def within_abort_grace(awaitable: Awaitable[T], signal: AbortSignal) -> T:
    """Await ``awaitable``; once ``signal`` is set it gets ``ABORT_GRACE_S`` more, then it is
    cancelled and ``TimeoutError`` is raised. Code that ignores the signal (an HTTP call without
    a timeout, a tool that never checks it) so cannot hold the run past its deadline."""
    task = asyncio.ensure_future(_exit_as_error(awaitable))
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            await asyncio.wait({task}, timeout=ABORT_GRACE_S)
        if not task.done():
            task.cancel()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # nothing left unretrieved
            raise TimeoutError(f"still running {ABORT_GRACE_S:g} s after the run was aborted; abandoned")
        return task.result()
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        stop.cancel()


LENGTH_TOOL_ERROR = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments '
    "may be truncated. Re-issue the tool call with complete arguments."
)


@dataclass(frozen=True)
class TurnSnapshot:
    """The concrete state of one model request; taken at run start and at every save point."""

    model: Model
    provider: Provider
    system_prompt: str
    tools: tuple[AgentTool, ...]
    options: StreamOptions
    session_id: str


class LoopHost(Protocol):
    """What the loop needs from its owner. ``persist`` is called on every ``message_end``."""

    hooks: SessionHooks
    signal: AbortSignal
    tool_context: ToolContext

    def context_messages(self) -> list[AnyMessage]: ...

    def persist(self, message: AnyMessage) -> None: ...

    def drain_steering(self) -> list[UserMessage]: ...

    def drain_follow_ups(self) -> list[UserMessage]: ...

    async def save_point(self) -> TurnSnapshot: ...


async def run_loop(host: LoopHost, snapshot: TurnSnapshot, prompts: list[UserMessage]) -> AgentEnd:
    """Run until the model stops, an error ends a request, or the signal aborts the run."""
    emit = host.hooks.emit
    new: list[AnyMessage] = []
    await emit(AgentStart())
    turn = 0
    await emit(TurnStart(turn))
    pending = [*prompts, *host.drain_steering()]
    while True:
        for message in pending:
            await _deliver(host, message, new)
        pending = []
        if host.signal.aborted:
            return await _end(host, new, "aborted")
        assistant = await stream_assistant(host, snapshot)
        if assistant.stop_reason == "error" and not host.signal.aborted:
            await _deliver_end(host, assistant, new)
            return await _end(host, new, assistant.error_message or "error")
        if host.signal.aborted or assistant.stop_reason == "aborted":
            await emit(MessageEnd(assistant))  # seen by listeners, never persisted: the turn is discarded
            return await _end(host, new, host.signal.reason or assistant.error_message or "aborted")
        await _deliver_end(host, assistant, new)
        results = await execute_tools(host, snapshot, assistant)
        for result in results:
            await _deliver(host, result, new)
        if host.signal.aborted:
            return await _end(host, new, host.signal.reason or "aborted")
        await emit(TurnEnd(turn, assistant, results))
        snapshot = await host.save_point()
        if host.signal.aborted:
            return await _end(host, new, host.signal.reason or "aborted")
        pending = host.drain_steering()
        if not assistant.tool_calls and not pending:
            pending = host.drain_follow_ups()
            if not pending:
                await emit(AgentEnd(new))
                return AgentEnd(new)
        turn += 1
        await emit(TurnStart(turn))


async def _end(host: LoopHost, new: list[AnyMessage], error: str) -> AgentEnd:
    event = AgentEnd(new, error=error)
    await host.hooks.emit(event)
    return event


async def _deliver(host: LoopHost, message: AnyMessage, new: list[AnyMessage]) -> None:
    await host.hooks.emit(MessageStart(message))
    await _deliver_end(host, message, new)


async def _deliver_end(host: LoopHost, message: AnyMessage, new: list[AnyMessage]) -> None:
    host.persist(message)
    new.append(message)
    await host.hooks.emit(MessageEnd(message))


def llm_messages(messages: list[AnyMessage]) -> list[AnyMessage]:
    """What a provider may see: failed or aborted assistant messages are dropped."""
    return [m for m in messages if not (isinstance(m, AssistantMessage) and m.stop_reason in ("error", "aborted"))]


class _ProviderHookBridge:
    """Adapts the session hooks to the provider's per-request callbacks and counts attempts."""

    def __init__(self, host: LoopHost, model: Model) -> None:
        self._host = host
        self._model = model
        self.attempts = 0

    async def on_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.attempts += 1
        return await self._host.hooks.before_provider_payload(payload, self._model)

    async def on_response(self, status: int, headers: dict[str, str]) -> None:
        await self._host.hooks.after_provider_response(status, headers)

    async def on_retry(self, attempt: int, status: int | None, delay_s: float, error: str) -> None:
        from aw_action.agent.events import HarnessEvent

        fields = {"attempt": attempt, "status": status, "delay_ms": round(delay_s * 1000), "error": error}
        await self._host.hooks.emit(HarnessEvent("retry", fields))


async def stream_assistant(host: LoopHost, snapshot: TurnSnapshot, purpose: str = "agent") -> AssistantMessage:
    """One model request through the hooks. Returns the final message (maybe error/aborted);
    emits ``message_start``/``message_update`` and ``request_end`` but not ``message_end``."""
    hooks = host.hooks
    messages = llm_messages(await hooks.context(list(host.context_messages())))
    prepared = await hooks.before_provider_request(
        BeforeProviderRequestEvent(snapshot.model, snapshot.options.copy(), purpose)
    )
    if host.signal.aborted:
        return AssistantMessage(
            provider=snapshot.model.provider,
            model=snapshot.model.id,
            stop_reason="aborted",
            error_message=host.signal.reason or "aborted",
            error_kind="aborted",
        )
    request = ProviderRequest(
        model=snapshot.model,
        system_prompt=snapshot.system_prompt,
        messages=messages,
        tools=[tool_spec(t) for t in snapshot.tools],
        options=prepared.options or snapshot.options,
        session_id=snapshot.session_id,
        purpose=purpose,
    )
    bridge = _ProviderHookBridge(host, snapshot.model)
    started = time.monotonic()
    final: AssistantMessage | None = None
    started_event = False
    stream = snapshot.provider.stream(request, bridge, host.signal)
    try:
        async for event in stream:
            if isinstance(event, StreamStart):
                started_event = True
                await hooks.emit(MessageStart(event.partial))
            elif isinstance(event, StreamDelta):
                await hooks.emit(MessageUpdate(event.partial, event))
            else:
                final = event.message
                if not started_event:
                    await hooks.emit(MessageStart(final))
                break
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:  # release the provider's connection even when we stop early
            await aclose()
    if final is None:
        final = AssistantMessage(
            stop_reason="error", error_message="provider stream ended without a result", error_kind="fatal"
        )
    final.provider = final.provider or snapshot.model.provider
    final.model = final.model or snapshot.model.id
    await hooks.emit(
        RequestEnd(
            message=final,
            duration_ms=round((time.monotonic() - started) * 1000),
            streaming=True,
            purpose=purpose,
            attempts=max(bridge.attempts, 1),
            steering=prepared.steering,
        )
    )
    return final


def _error_result(call: ToolCall, text: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call.id, tool_name=call.name, content=[TextContent(text=text)], is_error=True)


@dataclass(frozen=True)
class _Ready:
    """A call that passed preparation: the tool and the arguments it runs with."""

    tool: AgentTool
    args: dict[str, Any]


async def _prepare(
    host: LoopHost, tools: dict[str, AgentTool], call: ToolCall, assistant: AssistantMessage
) -> ToolResultMessage | _Ready:
    """Resolve, shim, validate and gate one call: a call to run, or an immediate error result.

    A tool may have ``prepare_arguments(args) -> args`` (Pi's shim for older argument shapes); it
    runs before validation. ``tool_call`` handlers see the same dict the tool gets and may change
    it in place (not re-validated, as in Pi)."""
    if assistant.stop_reason == "length":
        return _error_result(call, LENGTH_TOOL_ERROR.format(name=call.name))
    tool = tools.get(call.name)
    if tool is None:
        return _error_result(call, f"Tool {call.name} not found")
    if call.raw_arguments is not None:
        return _error_result(call, f"Invalid JSON arguments for tool {call.name}: {call.raw_arguments[:200]}")
    shim = getattr(tool, "prepare_arguments", None)
    args: dict[str, Any] = shim(dict(call.arguments)) if callable(shim) else dict(call.arguments)
    import jsonschema  # here, not at the top: ~35 ms that would delay the first request (bench/)

    try:
        jsonschema.validate(args, tool.parameters)
    except jsonschema.ValidationError as exc:
        return _error_result(call, f"Validation failed for tool {call.name}: {exc.message}")
    gate = await host.hooks.tool_call(ToolCallEvent(call.id, call.name, args))
    if gate.block:
        return _error_result(call, gate.reason or "Tool execution was blocked")
    if host.signal.aborted:
        return _error_result(call, "Operation aborted")
    return _Ready(tool, args)


async def execute_tools(host: LoopHost, snapshot: TurnSnapshot, assistant: AssistantMessage) -> list[ToolResultMessage]:
    """Run the assistant's tool calls in parallel (Pi's default mode).

    Start events and preparation run one call at a time in order; allowed tools then run
    concurrently; ``tool_execution_end`` fires in completion order; results come back in the
    assistant's order. Once the signal is set no further call starts; calls that never started
    get no result (repair adds one if the session continues).
    """
    tools = {t.name: t for t in snapshot.tools}
    prepared: list[tuple[ToolCall, ToolResultMessage | _Ready, float]] = []
    for call in assistant.tool_calls:
        if host.signal.aborted:
            break
        await host.hooks.emit(ToolExecutionStart(call.id, call.name, call.arguments))
        prepared.append((call, await _prepare(host, tools, call, assistant), time.monotonic()))

    async def finish(call: ToolCall, outcome: ToolResultMessage | _Ready, started: float) -> ToolResultMessage:
        if isinstance(outcome, ToolResultMessage):
            result = outcome
        else:
            result = await _run(host, call, outcome)
            result = await host.hooks.tool_result(ToolResultEvent(call.id, call.name, outcome.args, result))
        duration = round((time.monotonic() - started) * 1000)
        await host.hooks.emit(ToolExecutionEnd(call.id, call.name, result, result.is_error, duration))
        return result

    return list(await asyncio.gather(*(finish(c, o, s) for c, o, s in prepared)))


async def _run(host: LoopHost, call: ToolCall, ready: _Ready) -> ToolResultMessage:
    settled = False

    async def on_update(partial: ToolResult) -> None:
        if not settled:
            text = "".join(c.text for c in partial.content)
            await host.hooks.emit(ToolExecutionUpdate(call.id, call.name, ready.args, text))

    try:
        outcome = await within_abort_grace(
            ready.tool.execute(call.id, ready.args, host.signal, on_update, host.tool_context), host.signal
        )
        result = ToolResultMessage(
            tool_call_id=call.id, tool_name=call.name, content=outcome.content, details=outcome.details
        )
    except Exception as exc:  # a tool reports failure by raising; the model reads the text
        result = _error_result(call, str(exc) or type(exc).__name__)
    finally:
        settled = True
    return result
