"""What the loop needs from its owner (``LoopHost``) and the state one model request runs on
(``TurnSnapshot``); shared by the loop and the tool batch, so neither imports the other's module."""

from __future__ import annotations

from typing import Protocol

from aw_action.agent.events import AnyMessage
from aw_action.agent.hooks import SessionHooks
from aw_action.agent.tools import AgentTool, ToolContext
from aw_action.ai.types import AbortSignal, Model, Provider, StreamOptions, UserMessage
from aw_action.lazy_dataclass import dataclass


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
    """What the loop needs from its owner. ``persist`` is called on every ``message_end``;
    ``snapshot`` at run start, ``save_point`` after every completed turn. The loop sets
    ``at_turn_boundary`` while it delivers ``turn_end`` and ``agent_end``."""

    hooks: SessionHooks
    tool_context: ToolContext
    at_turn_boundary: bool

    @property
    def signal(self) -> AbortSignal: ...

    @property
    def ending(self) -> bool:
        """The owner asked the loop to end after the current turn (not an abort)."""
        ...

    def context_messages(self) -> list[AnyMessage]: ...

    def persist(self, message: AnyMessage) -> None: ...

    def drain_steering(self) -> list[UserMessage]: ...

    def drain_follow_ups(self) -> list[UserMessage]: ...

    def snapshot(self) -> TurnSnapshot: ...

    async def save_point(self) -> TurnSnapshot: ...
