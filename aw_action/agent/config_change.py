"""What changes when the session's config changes at a save point (seed 001's lifecycle; Pi's
``setModel``, ``prepareNextTurn``).

``AppliedConfig`` is the config one snapshot used; ``changes_from`` names what differs from the
one before (``model``, ``system_prompt``, ``options``). After a model change the history keeps
no reasoning from the previous model (``without_reasoning``): a reasoning block's signature (or
an OpenAI reasoning item) is only valid for the model that wrote it, and another model must not
be sent one. Pi turns such blocks into text; here they are dropped, with their signatures. The
new messages are new objects, so a provider's per-message conversion memo sees them as new.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, Model, StreamOptions, ThinkingContent


@dataclass(frozen=True)
class AppliedConfig:
    model: Model
    system_prompt: str
    options: StreamOptions

    def changes_from(self, previous: AppliedConfig) -> list[str]:
        """The names of what differs from ``previous``, in a fixed order."""
        changed = []
        if self.model != previous.model:
            changed.append("model")
        if self.system_prompt != previous.system_prompt:
            changed.append("system_prompt")
        if self.options != previous.options:
            changed.append("options")
        return changed


def without_reasoning(messages: Sequence[AnyMessage]) -> tuple[list[AnyMessage], int]:
    """``messages`` with every assistant message's reasoning blocks removed (copies of the
    messages that had any; the others unchanged), and how many blocks were removed."""
    out: list[AnyMessage] = []
    dropped = 0
    for message in messages:
        if isinstance(message, AssistantMessage):
            kept = [c for c in message.content if not isinstance(c, ThinkingContent)]
            if len(kept) != len(message.content):
                dropped += len(message.content) - len(kept)
                message = message.model_copy(update={"content": kept})
        out.append(message)
    return out, dropped
