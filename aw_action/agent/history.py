"""Rules for replacing the message history (``AgentSession.replace_messages``), as pure functions.

A history is empty or starts with a user message, and the session never breaks a tool call from
its result (every result answers a call of the assistant message before it). Providers reject a
result whose call is gone, or a conversation that opens with the model.

A replacement queued while a run is busy was computed from the history *as it was then*; by the
time it is applied (at the next save point) the loop may have persisted more messages. ``rebase``
applies it without breaking those rules:

- the messages persisted meanwhile are kept after the replacement;
- if the replacement was computed in the middle of a tool batch (between the assistant message
  and the last of its results), that whole turn is taken from the persisted history (the
  replacement's copy of it, if any, is dropped), so a call never loses its result;
- if the result would open with an assistant message or a tool result (a reset queued while
  busy), the leading turns are dropped up to the first user message; they stay in the
  transcript file.
"""

from __future__ import annotations

from collections.abc import Sequence

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, ToolResultMessage, UserMessage


def history_problem(messages: Sequence[AnyMessage]) -> str | None:
    """Why ``messages`` may not replace the history; None when it may.

    Only the opening is checked: a caller may hand over a history with orphan tool results (a
    resumed or damaged one; the repair extension fixes those before the next request)."""
    if messages and not isinstance(messages[0], UserMessage):
        return f"a history must start with a user message, not {messages[0].role}"
    return None


def _open_turn_start(prefix: Sequence[AnyMessage], tail: Sequence[AnyMessage]) -> int | None:
    """Index in ``prefix`` of the assistant message whose tool batch continues into ``tail``
    (the replacement was queued between a call and its result), else None."""
    if not tail or not isinstance(tail[0], ToolResultMessage):
        return None
    i = len(prefix) - 1
    while i >= 0 and isinstance(prefix[i], ToolResultMessage):
        i -= 1
    owner = prefix[i] if i >= 0 else None
    return i if isinstance(owner, AssistantMessage) and owner.tool_calls else None


def _belongs_to(message: AnyMessage, call_ids: set[str]) -> bool:
    if isinstance(message, ToolResultMessage):
        return message.tool_call_id in call_ids
    return isinstance(message, AssistantMessage) and any(c.id in call_ids for c in message.tool_calls)


def rebase(replacement: Sequence[AnyMessage], current: Sequence[AnyMessage], tail_len: int) -> list[AnyMessage]:
    """The history after applying ``replacement``, which was computed from ``current`` minus its
    last ``tail_len`` messages (those were persisted after the replacement was queued)."""
    tail_len = max(0, min(tail_len, len(current)))
    prefix, tail = list(current[: len(current) - tail_len]), list(current[len(current) - tail_len :])
    start = _open_turn_start(prefix, tail)
    if start is None:
        merged = [*replacement, *tail]
    else:
        ids = {c.id for c in prefix[start].tool_calls}  # type: ignore[union-attr]
        merged = [m for m in replacement if not _belongs_to(m, ids)] + prefix[start:] + tail
    first_user = next((i for i, m in enumerate(merged) if isinstance(m, UserMessage)), len(merged))
    return merged[first_user:]
