"""The turn loop, as plain functions over a ``LoopHost`` (the session implements it).

One run, event order (as Pi's agent loop):
``agent_start``, ``turn_start``, the pending user messages (``message_start``/``message_end``),
the assistant stream (``message_start``, ``message_update``*, ``message_end``), a ``request_end``
record, the tool calls (``tool_batch.py``), ``turn_end``; then a save point; then the next turn
or ``agent_end``.

Drain points: steering is polled once before the first model call and after every completed
turn (after the whole tool batch, before the next request); follow-ups only when the agent would
otherwise stop.

Turn boundaries: while ``turn_end`` and ``agent_end`` are delivered the host's
``at_turn_boundary`` is True (no request or tool call is in flight, and nothing is persisted
before the save point or settlement that follows), the one place mid-run where the session
accepts a history replacement.

Endings:
- a request that ends in an error: its assistant message is persisted, then ``turn_end`` (with
  no tool results) and ``agent_end`` with the error, as in Pi: the turn is counted and recorded;
- the owner's ``ending`` (``AgentSession.end_after_turn``): after the turn's save point the run
  ends cleanly, as if the model had stopped, leaving queued steering for the next prompt;
- abort: no model request and no tool call starts once the signal is set. The turn in progress
  ends as in Pi, with ``turn_end`` (its ``stop_reason`` the abort's reason: ``cancelled``,
  ``timeout``, a budget's) and then ``agent_end``: every ``turn_start`` has its ``turn_end``.
  Unlike Pi, what the turn had not persisted when the signal came is discarded: an aborted
  assistant message is seen by listeners (``message_end``) but never persisted, and a cut-short
  turn is not a completed one (the cost tracker books no turn for it);
- a contract violation (a provider, hook or listener that raises): Pi's rule, the run ends with
  an assistant error message (persisted), ``turn_end`` and ``agent_end``; nothing escapes
  ``run_loop`` but ``asyncio.CancelledError``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

from aw_action.agent.events import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    AnyMessage,
    BeforeProviderRequestEvent,
    HarnessEvent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    RequestEnd,
    TurnEnd,
    TurnStart,
)
from aw_action.agent.host import LoopHost, TurnSnapshot
from aw_action.agent.tool_batch import (
    ABORT_GRACE_S,
    LENGTH_TOOL_ERROR,
    ToolBatch,
    within_abort_grace,
)
from aw_action.agent.tools import AgentTool, tool_spec
from aw_action.ai.text import clean_message
from aw_action.ai.types import (
    AssistantMessage,
    Model,
    ProviderRequest,
    StreamDelta,
    StreamOptions,
    StreamStart,
    ToolResultMessage,
    UserMessage,
)

__all__ = [
    "ABORT_GRACE_S",
    "LENGTH_TOOL_ERROR",
    "LoopHost",
    "TurnSnapshot",
    "llm_messages",
    "run_loop",
    "stream_assistant",
    "within_abort_grace",
]

EMPTY_HISTORY_ERROR = "nothing to send: the message history is empty"


class _Run:
    """One run's progress, so that a failure at any point can still close it properly."""

    def __init__(self, host: LoopHost) -> None:
        self.host = host
        self.new: list[AnyMessage] = []
        self.started = False
        self.ended = False
        self.turn = 0
        self.turn_open = False

    async def emit(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStart):
            self.started = True
        elif isinstance(event, TurnStart):
            self.turn, self.turn_open = event.turn_index, True
        elif isinstance(event, TurnEnd):
            self.turn_open = False
        elif isinstance(event, AgentEnd):
            self.ended = True
        boundary = isinstance(event, TurnEnd | AgentEnd)
        self.host.at_turn_boundary = boundary
        try:
            await self.host.hooks.emit(event)
        finally:
            if boundary:
                self.host.at_turn_boundary = False

    async def deliver(self, message: AnyMessage) -> None:
        await self.emit(MessageStart(message))
        await self.deliver_end(message)

    async def deliver_end(self, message: AnyMessage) -> None:
        self.host.persist(message)
        self.new.append(message)
        await self.emit(MessageEnd(message))

    async def end(self, error: str | None = None) -> AgentEnd:
        event = AgentEnd(self.new, error=error)
        await self.emit(event)
        return event

    async def cut_short(
        self, reason: str, message: AssistantMessage, results: Sequence[ToolResultMessage] = ()
    ) -> AgentEnd:
        """End the run inside its open turn: ``turn_end`` with ``reason``, then ``agent_end``
        (its error the reason, or the message's error when there was nothing to send)."""
        await self.emit(TurnEnd(self.turn, message, list(results), stop_reason=reason))
        return await self.end(message.error_message if reason == "error" else reason)

    async def fail(self, exc: Exception) -> AgentEnd:
        """Close the run after a contract violation: an assistant error message, ``turn_end``,
        ``agent_end``. A listener that raises again here is ignored (the run must end). After
        ``agent_end`` (its listener raised) nothing more is emitted or persisted."""
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if self.ended:
            return AgentEnd(self.new, error=text)
        message = AssistantMessage(stop_reason="error", error_message=text, error_kind="fatal")
        with contextlib.suppress(Exception):
            self.host.persist(message)
        self.new.append(message)
        events: list[AgentEvent] = [] if self.started else [AgentStart(), TurnStart(0)]
        if self.started and not self.turn_open:
            events.append(TurnStart(self.turn + 1))
        events += [MessageStart(message), MessageEnd(message), TurnEnd(self.turn, message, [])]
        for event in events:
            with contextlib.suppress(Exception):
                await self.emit(event)
        end = AgentEnd(self.new, error=text)
        with contextlib.suppress(Exception):
            await self.emit(end)
        return end


async def run_loop(host: LoopHost, prompts: list[UserMessage]) -> AgentEnd:
    """Run until the model stops, an error ends a request, or the signal aborts the run.

    Never raises (but ``asyncio.CancelledError``): see "Endings" in the module docstring."""
    run = _Run(host)
    try:
        return await _loop(run, prompts)
    except Exception as exc:
        return await run.fail(exc)


async def _loop(run: _Run, prompts: list[UserMessage]) -> AgentEnd:
    host = run.host
    snapshot = await host.save_point()  # the config set while idle applies from here
    await run.emit(AgentStart())
    await run.emit(TurnStart(0))
    pending = [*prompts, *host.drain_steering()]
    while True:
        for message in pending:
            await run.deliver(message)
        pending = []
        if host.signal.aborted:
            reason = _abort_reason(host)
            return await run.cut_short(reason, _unsent(snapshot, "aborted", reason))
        if not host.context_messages():  # an empty prompt on an empty history
            return await run.cut_short("error", _unsent(snapshot, "error", EMPTY_HISTORY_ERROR))
        assistant = await stream_assistant(host, snapshot)
        if assistant.stop_reason == "error" and not host.signal.aborted:
            await run.deliver_end(assistant)
            await run.emit(TurnEnd(run.turn, assistant, []))
            return await run.end(assistant.error_message or "error")
        if host.signal.aborted or assistant.stop_reason == "aborted":
            await run.emit(MessageEnd(assistant))  # seen by listeners, never persisted: the turn is cut short
            return await run.cut_short(host.signal.reason or assistant.error_message or "aborted", assistant)
        await run.deliver_end(assistant)
        results: list[ToolResultMessage] = await ToolBatch(host, snapshot, assistant, run.deliver).run()
        if host.signal.aborted:
            return await run.cut_short(_abort_reason(host), assistant, results)
        await run.emit(TurnEnd(run.turn, assistant, results))
        snapshot = await host.save_point()
        if host.signal.aborted:
            return await run.end(_abort_reason(host))
        if host.ending:  # the owner ends the prompt here; queued steering waits for its next prompt
            return await run.end()
        pending = host.drain_steering()
        if not assistant.tool_calls and not pending:
            pending = host.drain_follow_ups()
            if not pending:
                return await run.end()
        await run.emit(TurnStart(run.turn + 1))


def _abort_reason(host: LoopHost) -> str:
    return host.signal.reason or "aborted"


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
        fields = {"attempt": attempt, "status": status, "delay_ms": round(delay_s * 1000), "error": error}
        await self._host.hooks.emit(HarnessEvent("retry", fields))


def _unsent(snapshot: TurnSnapshot, stop: str, text: str) -> AssistantMessage:
    """An assistant message for a request that was never sent (aborted, nothing to send)."""
    return AssistantMessage(
        provider=snapshot.model.provider,
        model=snapshot.model.id,
        stop_reason="aborted" if stop == "aborted" else "error",
        error_message=text,
        error_kind="aborted" if stop == "aborted" else "fatal",
    )


def _provider_failure(snapshot: TurnSnapshot, exc: Exception) -> AssistantMessage:
    """A provider broke its contract (it raised): the request ends as an error, as in Pi."""
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return _unsent(snapshot, "error", f"provider {snapshot.provider.name!r} failed: {detail}")


async def stream_assistant(host: LoopHost, snapshot: TurnSnapshot, purpose: str = "agent") -> AssistantMessage:
    """The turn's model request: the history through the ``context`` hooks, then ``request_model``
    with the snapshot's system prompt, tools and options, streamed live to listeners."""
    messages = llm_messages(await host.hooks.context(list(host.context_messages())))
    return await request_model(
        host,
        snapshot,
        system_prompt=snapshot.system_prompt,
        messages=messages,
        tools=snapshot.tools,
        options=snapshot.options,
        purpose=purpose,
    )


async def request_model(
    host: LoopHost,
    snapshot: TurnSnapshot,
    *,
    system_prompt: str,
    messages: list[AnyMessage],
    tools: Sequence[AgentTool],
    options: StreamOptions,
    purpose: str,
    live: bool = True,
) -> AssistantMessage:
    """One model request through the hooks: the one request path of the loop and of side requests
    (a compaction summary). Returns the final message (maybe error/aborted); emits ``request_end``
    and, when ``live``, ``message_start``/``message_update``, but not ``message_end`` (the caller's).

    ``before_provider_request`` may change the options or, by aborting, refuse the request (an
    ``aborted`` message, no ``request_end``). A provider that raises (its contract says it never
    does) ends the request as an error message; a listener that raises propagates (``run_loop``
    closes the run). The stream is always closed. The final message's strings are cleaned
    (``ai/text.py``): whatever the provider produced, the message encodes as UTF-8 JSON."""
    hooks = host.hooks
    model = snapshot.model
    specs = [tool_spec(t) for t in tools]
    prepared = await hooks.before_provider_request(
        BeforeProviderRequestEvent(
            model, options.copy(), purpose, system_prompt=system_prompt, messages=messages, tools=specs
        )
    )
    if host.signal.aborted:
        return _unsent(snapshot, "aborted", host.signal.reason or "aborted")
    if not messages:
        empty = _unsent(snapshot, "error", EMPTY_HISTORY_ERROR)
        if live:
            await hooks.emit(MessageStart(empty))
        return empty
    suffix = "" if purpose == "agent" else f":{purpose}"
    request = ProviderRequest(
        model=model,
        system_prompt=system_prompt,
        messages=messages,
        tools=specs,
        options=prepared.options or options,
        session_id=snapshot.session_id + suffix,
        purpose=purpose,
    )
    bridge = _ProviderHookBridge(host, model)
    started = time.monotonic()
    final: AssistantMessage | None = None
    started_event = False
    stream: Any = None
    events: Any = None
    try:
        stream = snapshot.provider.stream(request, bridge, host.signal)
        events = stream.__aiter__()
    except Exception as exc:
        final = _provider_failure(snapshot, exc)
    try:
        while final is None:
            try:
                event = await events.__anext__()
            except StopAsyncIteration:
                break
            except Exception as exc:
                final = _provider_failure(snapshot, exc)
                break
            if isinstance(event, StreamStart):
                started_event = True
                if live:
                    await hooks.emit(MessageStart(event.partial))
            elif isinstance(event, StreamDelta):
                if live and hooks.listens("message_update"):
                    await hooks.emit(MessageUpdate(event))
            else:
                final = event.message
    finally:
        aclose = getattr(stream, "aclose", None)
        if aclose is not None:  # release the provider's connection even when we stop early
            with contextlib.suppress(Exception):
                await aclose()
    if final is None:
        final = _unsent(snapshot, "error", "provider stream ended without a result")
    clean_message(final)
    final.provider = final.provider or model.provider
    final.model = final.model or model.id
    if live and not started_event:
        await hooks.emit(MessageStart(final))
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
