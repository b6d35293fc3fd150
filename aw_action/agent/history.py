"""What may replace the message history (``AgentSession.replace_messages``), as a pure rule.

A history is empty or starts with a user message: providers reject a conversation that opens
with the model or with a tool result. When a replacement may happen is the session's rule (a
structural operation: idle, or at a turn boundary while a prompt runs), and it is applied
before anything else is persisted, so it never separates a tool call from its result.
"""

from __future__ import annotations

from collections.abc import Sequence

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import UserMessage


def history_problem(messages: Sequence[AnyMessage]) -> str | None:
    """Why ``messages`` may not replace the history; None when it may.

    Only the opening is checked: a caller may hand over a history with orphan tool results (a
    resumed or damaged one; the repair extension fixes those before the next request)."""
    if messages and not isinstance(messages[0], UserMessage):
        return f"a history must start with a user message, not {messages[0].role}"
    return None
