"""What changes when the session's config changes at a save point (seed 001's lifecycle; Pi's
``setModel``, ``prepareNextTurn``).

``AppliedConfig`` is the config one snapshot used; ``changes_from`` names what differs from the
one before (``model``, ``system_prompt``, ``options``); ``apply_change`` is what a save point
does with them: a ``model_change`` transcript entry and harness record for a new model (Pi's
``model_change`` session entry), a ``config_change`` entry for the rest. After a model change the history keeps
no reasoning from the previous model (``without_reasoning``): a reasoning block's signature (or
an OpenAI reasoning item) is only valid for the model that wrote it, and another model must not
be sent one. Pi turns such blocks into text; here they are dropped, with their signatures. The
new messages are new objects, so a provider's per-message conversion memo sees them as new.
"""

from __future__ import annotations

from collections.abc import Sequence

from aw_action.agent.events import AnyMessage, HarnessEvent
from aw_action.agent.transcript import Transcript
from aw_action.ai.types import AssistantMessage, Model, StreamOptions, ThinkingContent
from aw_action.lazy_dataclass import dataclass


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


def apply_change(
    previous: AppliedConfig, now: AppliedConfig, messages: list[AnyMessage], transcript: Transcript | None
) -> tuple[list[AnyMessage], HarnessEvent | None]:
    """The history to keep and the harness record to emit (None: no new model) when a save point
    moves from ``previous`` to ``now``; the transcript entries are written here."""
    changes = now.changes_from(previous)
    event = None
    if "model" in changes:
        messages, dropped = without_reasoning(messages)
        fields = {"from": previous.model.ref, "to": now.model.ref, "reasoning_dropped": dropped}
        event = HarnessEvent("model_change", fields)
        if transcript is not None:
            transcript.append(
                "model_change", provider=now.model.provider, modelId=now.model.id, previous=previous.model.ref
            )
    others = [c for c in changes if c != "model"]
    if others and transcript is not None:
        transcript.append("config_change", changed=others)
    return messages, event


def reasoning_for(messages: Sequence[AnyMessage], model: Model) -> tuple[list[AnyMessage], int]:
    """``messages`` keeping reasoning only on the assistant messages ``model`` wrote itself
    (provider and id): the rule of ``without_reasoning`` for a history written by several models
    (an earlier run's, continued with another model). Returns the messages and the blocks dropped."""
    out: list[AnyMessage] = []
    dropped = 0
    for message in messages:
        if isinstance(message, AssistantMessage) and (message.provider, message.model) != (model.provider, model.id):
            kept, count = without_reasoning([message])
            message, dropped = kept[0], dropped + count
        out.append(message)
    return out, dropped
