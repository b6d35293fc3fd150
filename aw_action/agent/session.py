"""AgentSession: phases, queues, runtime config, save points and pending writes.

Lifecycle rules (seed 001, "AgentHarness lifecycle"):
- Structural operations (``prompt``, ``run_structural``) need ``phase == "idle"``; they set the
  phase before their first ``await`` and raise ``SessionBusyError`` otherwise. ``replace_messages``
  is structural too: while a prompt runs it is refused (``SessionBusyError``, nothing changes)
  except at a turn boundary, from a ``turn_end`` or ``agent_end`` listener (where repair and
  compaction write), and even there a reset (an empty history) is refused.
- ``steer``, ``follow_up``, ``next_turn``, ``abort`` and the runtime setters (``set_model``,
  ``set_system_prompt``, ``set_options``, ``set_tools``, ``set_active_tools``) are accepted at any
  time. Setters change the *latest config*; a turn uses the snapshot taken at run start or at the
  last save point, so an in-flight request is never mutated. Getters return the latest config.
  ``set_model`` resolves the model's provider at once: a model the run cannot reach raises
  ``ModelUnavailableError`` and nothing changes.
- Save point = at the start of a run and after a turn's assistant message and all its tool
  results: pending session writes are flushed (after that turn's agent messages) and a fresh
  snapshot is taken. A snapshot whose config differs from the one in use is recorded there
  (``config_change.py``): a ``model_change`` transcript entry and harness record for a new model
  (whose history then loses the previous model's reasoning blocks and signatures), a
  ``config_change`` entry for a new system prompt or new options.
- Session writes (``append_entry``, and ``replace_messages`` at a turn boundary) made while busy
  are queued and flushed in order at the next save point, at settlement, or in failure cleanup;
  never dropped. A replacement is applied before anything else is persisted (a boundary is
  followed directly by a save point or settlement), so it never separates a tool call from its
  result; a history never opens with an assistant or tool message (``history.py``).
- Steering and follow-up queues drain one message at a time (Pi's default ``one-at-a-time``).
- After a run ends, queued follow-ups (e.g. from an ``agent_end`` listener) start another run in
  the same ``prompt`` call unless the session was aborted.
- Abort is per operation (Pi): every ``prompt``/``run_structural`` call gets a fresh
  ``AbortSignal`` (``signal``). ``abort()`` ends the current operation only; while idle it does
  nothing, so the next prompt runs normally (and receives its ``next_turn`` messages). The one
  way to cancel a prompt that has not started yet is ``cancel_pending()`` (the CLI's early
  cancel: a signal that arrives before the run starts).
- ``prompt`` never raises for what happens inside the run (a raising provider, hook or listener
  ends the run with an assistant error message, see ``loop.py``); only ``SessionBusyError`` (not
  idle, disposed) and ``asyncio.CancelledError`` escape it.
- Tool names are unique: the constructor, ``set_tools`` and ``set_active_tools`` reject
  duplicates with ``ValueError`` (a provider would otherwise see the tool listed twice).
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Literal

from aw_action.agent.config_change import AppliedConfig, apply_change
from aw_action.agent.events import AgentEnd, AnyMessage
from aw_action.agent.history import history_problem
from aw_action.agent.hooks import NullHooks, SessionHooks
from aw_action.agent.host import TurnSnapshot
from aw_action.agent.loop import run_loop
from aw_action.agent.tools import AgentTool, ToolContext
from aw_action.agent.transcript import Transcript
from aw_action.ai.types import AbortSignal, Model, Provider, StreamOptions, UserMessage
from aw_action.lazy_dataclass import dataclass

Phase = Literal["idle", "turn", "compaction", "retry"]
ProviderResolver = Callable[[Model], Provider]

MAX_CHAINED_RUNS = 16
"""Upper bound on follow-up runs started by one ``prompt`` call (guards listener loops)."""


class SessionBusyError(RuntimeError):
    """A structural operation was called while the session was not idle."""


class ModelUnavailableError(ValueError):
    """``set_model`` was given a model the run cannot reach (its provider has no credentials, or
    inside gh-aw AWF does not route it); the message says which and how to fix it. The session's
    ``resolve_provider`` raises it."""


@dataclass(frozen=True)
class PendingWrite:
    """A session write queued while busy: a transcript entry or a message-history replacement."""

    kind: Literal["entry", "replace_messages"]
    custom_type: str = ""
    data: Any = None
    messages: tuple[AnyMessage, ...] = ()


def _unique(names: Sequence[str], what: str) -> list[str]:
    dupes = sorted(n for n, count in Counter(names).items() if count > 1)
    if dupes:
        raise ValueError(f"duplicate {what} name(s): {', '.join(dupes)}")
    return list(names)


def _tool_table(tools: Sequence[AgentTool]) -> dict[str, AgentTool]:
    _unique([t.name for t in tools], "tool")
    return {t.name: t for t in tools}


class AgentSession:
    """One agent session. Create it, ``await prompt(...)`` once or more, then ``dispose()``."""

    def __init__(
        self,
        *,
        model: Model,
        resolve_provider: ProviderResolver,
        tools: Sequence[AgentTool] = (),
        system_prompt: str = "",
        hooks: SessionHooks | None = None,
        tool_context: ToolContext,
        transcript: Transcript | None = None,
        options: StreamOptions | None = None,
        session_id: str | None = None,
    ) -> None:
        self.session_id = session_id or str(uuid.uuid4())
        self.hooks: SessionHooks = hooks or NullHooks()
        self.tool_context = tool_context
        self.transcript = transcript
        self._signal = AbortSignal()
        self._cancel_pending: str | None = None
        self.at_turn_boundary = False
        """Set by the loop while it delivers ``turn_end`` and ``agent_end``."""
        self._resolve_provider = resolve_provider
        self._model = model
        self._tools: dict[str, AgentTool] = _tool_table(tools)
        self._active: list[str] = list(self._tools)
        self._system_prompt = system_prompt
        self._options = options or StreamOptions()
        self._applied = AppliedConfig(model, system_prompt, self._options.copy())
        """The config of the last snapshot taken at a save point (what requests now use)."""
        self._phase: Phase = "idle"
        self._messages: list[AnyMessage] = []
        self._steering: list[UserMessage] = []
        self._follow_ups: list[UserMessage] = []
        self._next_turn: list[UserMessage] = []
        self._pending: list[PendingWrite] = []
        self.abort_reason: str | None = None
        self._end_after_turn = False
        self.last_end: AgentEnd | None = None
        self.disposed = False

    # ---- getters: latest config, never the in-flight snapshot -----------------------------

    @property
    def signal(self) -> AbortSignal:
        """The abort signal of the current operation (of the last one while idle)."""
        return self._signal

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def is_idle(self) -> bool:
        return self._phase == "idle"

    @property
    def model(self) -> Model:
        return self._model

    @property
    def system_prompt(self) -> str:
        return self._system_prompt

    @property
    def tools(self) -> list[AgentTool]:
        return list(self._tools.values())

    @property
    def active_tool_names(self) -> list[str]:
        return list(self._active)

    @property
    def messages(self) -> list[AnyMessage]:
        """Persisted messages only (queued writes are not visible until flushed)."""
        return list(self._messages)

    @property
    def pending_writes(self) -> tuple[PendingWrite, ...]:
        return tuple(self._pending)

    @property
    def queued(self) -> dict[str, list[str]]:
        return {
            "steer": [m.text for m in self._steering],
            "follow_up": [m.text for m in self._follow_ups],
            "next_turn": [m.text for m in self._next_turn],
        }

    @property
    def options(self) -> StreamOptions:
        """The latest stream options (a copy)."""
        return self._options.copy()

    # ---- runtime setters: take effect at the next snapshot ---------------------------------

    def set_model(self, model: Model) -> None:
        """Use ``model`` from the next save point (never for a request in flight): its name,
        API, limits and prices. Its provider is resolved now: ``ModelUnavailableError`` when the
        run cannot reach it; nothing changes then."""
        self._resolve_provider(model)
        self._model = model

    def set_system_prompt(self, prompt: str) -> None:
        """Use ``prompt`` as the system prompt from the next save point."""
        self._system_prompt = prompt

    def set_options(self, options: StreamOptions) -> None:
        """Use ``options`` (copied) for requests from the next save point."""
        self._options = options.copy()

    def set_tools(self, tools: Sequence[AgentTool], active: Sequence[str] | None = None) -> None:
        """Replace the tools (and the active list, all of them by default). Raises ``ValueError``
        on a duplicate or unknown name; nothing changes then."""
        table = _tool_table(tools)
        names = _unique(active if active is not None else list(table), "active tool")
        unknown = [n for n in names if n not in table]
        if unknown:
            raise ValueError(f"unknown tool name(s): {', '.join(unknown)}")
        self._tools, self._active = table, names

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Choose which registered tools the next snapshot offers; ``ValueError`` on a duplicate
        or unknown name."""
        names = _unique(names, "active tool")
        unknown = [n for n in names if n not in self._tools]
        if unknown:
            raise ValueError(f"unknown tool name(s): {', '.join(unknown)}")
        self._active = names

    # ---- queue operations: allowed at any time ---------------------------------------------

    def steer(self, text: str) -> None:
        """Deliver ``text`` after the current turn's tool batch, before the next model call."""
        self._steering.append(UserMessage.of(text, source="steer"))

    def follow_up(self, text: str) -> None:
        """Deliver ``text`` when the agent would otherwise stop."""
        self._follow_ups.append(UserMessage.of(text, source="follow_up"))

    def next_turn(self, text: str) -> None:
        """Deliver ``text`` before the user message of the next ``prompt``."""
        self._next_turn.append(UserMessage.of(text, source="next_turn"))

    def abort(self, reason: str | None = None) -> None:
        """Stop the current operation: no further model request or tool call starts. Clears the
        steer and follow-up queues; keeps ``next_turn`` messages and pending writes. The first
        reason given is kept in ``abort_reason`` (reset when the next operation starts).

        While idle this does nothing: the next ``prompt`` runs normally (Pi). To cancel a prompt
        that has not started yet, use ``cancel_pending``."""
        if self.is_idle:
            return
        if self.abort_reason is None:
            self.abort_reason = reason or "aborted"
        self._signal.abort(self.abort_reason)
        self._steering.clear()
        self._follow_ups.clear()

    def end_after_turn(self) -> None:
        """End the running prompt once the current turn is complete (its tool batch, ``turn_end``
        and save point), as if the agent had stopped: no further model request, no follow-up run.
        Unlike ``abort`` it is not a failure (``agent_end`` has no error) and it keeps the queues:
        steering and follow-ups queued now reach the model with the next prompt. While idle it
        does nothing; the prompt clears it when it ends. (A workflow step ends this way once
        its completion is recorded.)"""
        if not self.is_idle:
            self._end_after_turn = True

    @property
    def ending(self) -> bool:
        """Whether the running prompt ends after this turn (``end_after_turn``)."""
        return self._end_after_turn

    def cancel_pending(self, reason: str = "cancelled") -> None:
        """Cancel the session's work, whatever its phase (the CLI's early cancel).

        Busy: the same as ``abort(reason)``. Idle: the next ``prompt``/``run_structural`` starts
        already aborted with ``reason``; a prompt then persists its user messages and ends at
        once (``agent_end`` with the reason, no model request). One-shot: the operation that
        consumes it clears it. Safe to call from a signal handler's callback at any time."""
        if self.is_idle:
            self._cancel_pending = self._cancel_pending or reason
        else:
            self.abort(reason)

    # ---- session writes ----------------------------------------------------------------------

    def append_entry(self, custom_type: str, data: Any = None) -> None:
        """Add a custom transcript entry: now when idle, at the next save point when busy."""
        self._write(PendingWrite("entry", custom_type=custom_type, data=data))

    def replace_messages(self, messages: Sequence[AnyMessage], reason: str) -> None:
        """Replace the message history (a resume, repair, compaction): a structural operation.

        Idle (or inside ``run_structural``): applied now (at the operation's end). While a
        prompt runs only at a turn boundary, from a ``turn_end`` or ``agent_end`` listener: then
        it is queued and applied at the save point or settlement that directly follows, before
        anything else is persisted. ``SessionBusyError`` anywhere else in a turn (mid-stream,
        mid-tool-batch, in a request or tool hook) and for a reset (an empty history) while a
        prompt runs; ``ValueError`` when ``messages`` opens with an assistant or tool message.
        Nothing changes when it raises."""
        problem = history_problem(messages)
        if problem is not None:
            raise ValueError(f"replace_messages ({reason}): {problem}")
        if self._phase == "turn" and not self.at_turn_boundary:
            raise SessionBusyError(
                f"session is busy (a turn is in progress): replace_messages ({reason}) is allowed "
                "while idle or from a turn_end or agent_end listener"
            )
        if self._phase == "turn" and not messages:
            raise SessionBusyError(f"session is busy (a prompt is running): a reset ({reason}) needs the session idle")
        self._write(PendingWrite("replace_messages", custom_type=reason, messages=tuple(messages)))

    def _write(self, write: PendingWrite) -> None:
        if self.is_idle:
            self._apply(write)
        else:
            self._pending.append(write)

    def _apply(self, write: PendingWrite) -> None:
        if write.kind == "entry":
            if self.transcript is not None:
                self.transcript.append("custom", customType=write.custom_type, data=write.data)
        else:
            self._messages = list(write.messages)
            if self.transcript is not None:
                self.transcript.append("history_replaced", reason=write.custom_type, count=len(self._messages))

    def _flush_pending(self) -> None:
        while self._pending:
            self._apply(self._pending.pop(0))

    # ---- LoopHost ----------------------------------------------------------------------------

    def context_messages(self) -> list[AnyMessage]:
        return list(self._messages)

    def persist(self, message: AnyMessage) -> None:
        self._messages.append(message)
        if self.transcript is not None:
            self.transcript.append_message(message)

    def drain_steering(self) -> list[UserMessage]:
        return [self._steering.pop(0)] if self._steering else []

    def drain_follow_ups(self) -> list[UserMessage]:
        return [self._follow_ups.pop(0)] if self._follow_ups else []

    async def save_point(self) -> TurnSnapshot:
        self._flush_pending()
        snapshot = self.snapshot()
        now = AppliedConfig(snapshot.model, snapshot.system_prompt, snapshot.options)
        previous, self._applied = self._applied, now
        self._messages, event = apply_change(previous, now, self._messages, self.transcript)
        if event is not None:
            await self.hooks.emit(event)
        return snapshot

    def snapshot(self) -> TurnSnapshot:
        active = tuple(self._tools[n] for n in self._active if n in self._tools)
        return TurnSnapshot(
            model=self._model,
            provider=self._resolve_provider(self._model),
            system_prompt=self._system_prompt,
            tools=active,
            options=self._options.copy(),
            session_id=self.session_id,
        )

    # ---- structural operations ---------------------------------------------------------------

    def _enter(self, phase: Phase) -> None:
        if self.disposed:
            raise SessionBusyError("session is disposed")
        if self._phase != "idle":
            raise SessionBusyError(f"session is busy ({self._phase}); use steer() or follow_up() to queue messages")
        self._phase = phase
        self._signal = AbortSignal()
        self.abort_reason = None
        self._end_after_turn = False
        if self._cancel_pending is not None:
            reason, self._cancel_pending = self._cancel_pending, None
            self.abort(reason)

    async def prompt(self, prompt: str | Sequence[UserMessage]) -> AgentEnd:
        """Run the agent on ``prompt`` (text, or ready-made user messages sent as one batch)."""
        self._enter("turn")
        try:
            messages = [UserMessage.of(prompt)] if isinstance(prompt, str) else list(prompt)
            batch = [*self._next_turn, *messages]
            self._next_turn.clear()
            end = await run_loop(self, batch)
            runs = 1
            while self._follow_ups and not self._signal.aborted and not self.ending and runs < MAX_CHAINED_RUNS:
                self._flush_pending()
                end = await run_loop(self, self.drain_follow_ups())
                runs += 1
            self.last_end = end
            return end
        finally:
            self._flush_pending()
            self._end_after_turn = False
            self._phase = "idle"

    async def run_structural(self, phase: Phase, operation: Callable[[], Any]) -> Any:
        """Run a structural operation (compaction, ...) under ``phase``; idle afterwards."""
        self._enter(phase)
        try:
            result = operation()
            if hasattr(result, "__await__"):
                result = await result
            return result
        finally:
            self._flush_pending()
            self._phase = "idle"

    def dispose(self) -> None:
        """Abort anything running, flush pending writes, close the transcript. Idempotent."""
        if self.disposed:
            return
        if not self.is_idle:
            self._signal.abort("disposed")
        self._flush_pending()
        if self.transcript is not None:
            self.transcript.close()
        self.disposed = True
