"""Context compaction, the pure part: token estimates, the cut point, the compacted history.

A compacted history is ``head + [one compaction message] + tail``:

- *head*: the leading user messages of the run (the task prompt), always kept verbatim;
- the compaction message (a ``UserMessage`` with ``source="compaction"``) replaces the dropped
  middle: a marker (sliding window) or a model-written summary (summarize); an earlier
  compaction message falls in the middle next time and is folded into the new summary;
- *tail*: the most recent messages, kept verbatim, at most ``keep_tokens`` (but always at least
  the last unit).

A unit is a user message, or an assistant message together with the tool results that follow
it. Cuts happen only at unit starts, so a tool call is never separated from its result.
Estimates are about four characters a token (Pi's rule); the last live assistant message's
reported usage is preferred where it exists.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage
from aw_action.ai.usage import estimate_tokens
from aw_action.lazy_dataclass import dataclass

SOURCE = "compaction"
RESULT_CHARS = 2000
TEXT_CHARS = 4000

SUMMARY_SYSTEM_PROMPT = (
    "You summarise an AI coding agent's conversation so that the agent can continue its task from "
    "the summary alone. Be factual and specific: keep file paths, commands, identifiers, error "
    "messages and decisions. Do not continue the task yourself."
)

SUMMARY_INSTRUCTIONS = """Write a structured summary of the conversation above with exactly these sections:

## Goal
## Constraints & Preferences
## Progress
### Done
### In Progress
### Blocked
## Key Decisions
## Next Steps
## Critical Context

If a previous summary is given, merge it into the new one; nothing in it may be lost."""

SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:"


def _call_text(call: ToolCall) -> str:
    return call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments, ensure_ascii=False)


def message_tokens(message: AnyMessage) -> int:
    if isinstance(message, AssistantMessage):
        parts: list[str] = []
        for block in message.content:
            if isinstance(block, TextContent):
                parts.append(block.text)
            elif isinstance(block, ThinkingContent):
                parts.append(block.thinking)
            else:
                parts.append(block.name + _call_text(block))
        return estimate_tokens("".join(parts))
    return estimate_tokens(message.text)


def messages_tokens(messages: Sequence[AnyMessage]) -> int:
    return sum(message_tokens(m) for m in messages)


def is_live(message: AnyMessage) -> bool:
    """False for failed or aborted assistant messages (never sent to a provider)."""
    return not (isinstance(message, AssistantMessage) and message.stop_reason in ("error", "aborted"))


def is_compaction_message(message: AnyMessage) -> bool:
    return isinstance(message, UserMessage) and message.source == SOURCE


def context_tokens(messages: Sequence[AnyMessage]) -> int:
    """Tokens the next request would send: the last live answer's reported prompt and output plus
    an estimate of what came after it; an estimate of everything when there is no usage yet."""
    for i in range(len(messages) - 1, -1, -1):
        m = messages[i]
        if isinstance(m, AssistantMessage) and is_live(m) and m.usage.total > 0:
            u = m.usage
            return u.input + u.cache_read + u.cache_write + u.output + u.reasoning + messages_tokens(messages[i + 1 :])
    return messages_tokens([m for m in messages if is_live(m)])


def head_length(messages: Sequence[AnyMessage]) -> int:
    """The number of leading task-prompt messages (user messages that are not compaction output)."""
    n = 0
    while n < len(messages) and isinstance(messages[n], UserMessage) and not is_compaction_message(messages[n]):
        n += 1
    return n


def unit_starts(messages: Sequence[AnyMessage], start: int = 0) -> list[int]:
    """Indexes (from ``start``) where a cut may fall: any message but a tool result."""
    return [i for i in range(start, len(messages)) if not isinstance(messages[i], ToolResultMessage)]


@dataclass(frozen=True)
class Plan:
    """Keep ``messages[:head]`` and ``messages[cut:]``; replace ``messages[head:cut]``."""

    head: int
    cut: int


def plan_compaction(messages: Sequence[AnyMessage], keep_tokens: int) -> Plan | None:
    """Where to cut, or None when nothing can be dropped."""
    head = head_length(messages)
    starts = unit_starts(messages, head)
    if not starts:
        return None
    cut = starts[-1]
    kept = messages_tokens(messages[cut:])
    for start in reversed(starts[:-1]):
        size = messages_tokens(messages[start:cut])
        if kept + size > keep_tokens:
            break
        kept += size
        cut = start
    dropped = messages[head:cut]
    if not dropped or all(is_compaction_message(m) for m in dropped):
        return None
    return Plan(head, cut)


def sliding_window(messages: Sequence[AnyMessage], plan: Plan) -> list[AnyMessage]:
    dropped = plan.cut - plan.head
    marker = UserMessage.of(
        f"[Context compacted: {dropped} earlier messages were removed to fit the model's context window. "
        "The task is stated above; the most recent messages follow.]",
        source=SOURCE,
    )
    return [*messages[: plan.head], marker, *messages[plan.cut :]]


def summarized(messages: Sequence[AnyMessage], plan: Plan, summary: str) -> list[AnyMessage]:
    message = UserMessage.of(f"{SUMMARY_PREFIX}\n\n<summary>\n{summary.strip()}\n</summary>", source=SOURCE)
    return [*messages[: plan.head], message, *messages[plan.cut :]]


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more characters]"


def serialize(messages: Sequence[AnyMessage]) -> tuple[str, list[str]]:
    """The dropped messages as plain text for the summariser, and any earlier summaries in them."""
    lines: list[str] = []
    previous: list[str] = []
    for m in messages:
        if is_compaction_message(m):
            previous.append(m.text)
        elif isinstance(m, UserMessage):
            lines.append(f"[User]: {_clip(m.text, TEXT_CHARS)}")
        elif isinstance(m, ToolResultMessage):
            label = "Tool error" if m.is_error else "Tool result"
            lines.append(f"[{label} ({m.tool_name})]: {_clip(m.text, RESULT_CHARS)}")
        elif is_live(m):
            for block in m.content:
                if isinstance(block, TextContent) and block.text.strip():
                    lines.append(f"[Assistant]: {_clip(block.text, TEXT_CHARS)}")
                elif isinstance(block, ThinkingContent) and block.thinking.strip():
                    lines.append(f"[Assistant thinking]: {_clip(block.thinking, RESULT_CHARS)}")
                elif isinstance(block, ToolCall):
                    lines.append(f"[Assistant tool call]: {block.name}({_clip(_call_text(block), RESULT_CHARS)})")
    return "\n".join(lines), previous


def summary_request_text(dropped: Sequence[AnyMessage], max_chars: int) -> str:
    """The user message of a summary request; the oldest text goes first when over ``max_chars``."""
    conversation, previous = serialize(dropped)
    if len(conversation) > max_chars:
        conversation = "[... earlier conversation omitted ...]\n" + conversation[-max_chars:]
    parts = [f"<conversation>\n{conversation}\n</conversation>"]
    if previous:
        parts.append("<previous-summary>\n" + "\n\n".join(previous) + "\n</previous-summary>")
    parts.append(SUMMARY_INSTRUCTIONS)
    return "\n\n".join(parts)
