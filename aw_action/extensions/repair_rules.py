"""Session repair, the pure part: what is broken in a history and how it is fixed.

Every provider rejects a history where a tool call has no result, a result has no call, or a
result is not right after its call; some reject text that is not valid UTF-8 (in Python: lone
surrogates) or arguments that are not a JSON object. ``repair_history`` returns a history that
satisfies all of this, and the list of fixes it made:

- after every live assistant message come exactly the results of its calls, in call order;
  results found later (before the next live assistant message) are moved up; a missing result
  becomes a synthetic error result; a result for no call, or a second result for a call, is
  dropped;
- tool-call arguments that were not a JSON object become ``{}`` (the call's error result already
  tells the model what went wrong);
- text in tool results is sanitised (``sanitize_text``) and capped at ``MAX_RESULT_CHARS``.

Failed or aborted assistant messages are never sent to a provider; they stay in place and their
calls are not expected to have results.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from aw_action.agent.compaction import is_live
from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from aw_action.lazy_dataclass import dataclass
from aw_action.tools import FILE_WRITERS

INTERRUPTED = "Tool call was interrupted before it produced a result."
MAX_RESULT_CHARS = 200_000

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class Fix:
    """One repair, as reported in a JSONL ``repair`` record."""

    action: str
    tool_name: str = ""
    tool_call_id: str = ""
    detail: str = ""

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "tool_name": self.tool_name, "tool_call_id": self.tool_call_id}
        if self.detail:
            out["detail"] = self.detail
        return out


def sanitize_text(text: str) -> tuple[str, int]:
    """Replace invalid UTF-8 (lone surrogates) with U+FFFD and strip terminal escapes and control
    characters other than tab and newlines. Returns the text and how many spans were changed."""
    count = 0
    for pattern, repl in ((_SURROGATE, "\ufffd"), (_ANSI, ""), (_CONTROL, "")):
        text, n = pattern.subn(repl, text)
        count += n
    return text, count


def clean_result_text(text: str) -> tuple[str, list[str]]:
    """Sanitise and cap one tool result's text; returns the text and what was done."""
    done: list[str] = []
    text, changed = sanitize_text(text)
    if changed:
        done.append("sanitized_tool_result")
    if len(text) > MAX_RESULT_CHARS:
        cut = len(text) - MAX_RESULT_CHARS
        text = text[:MAX_RESULT_CHARS] + f"\n[output truncated by the harness: {cut} more characters]"
        done.append("truncated_tool_result")
    return text, done


def _clean_result(result: ToolResultMessage, fixes: list[Fix]) -> ToolResultMessage:
    text, done = clean_result_text(result.text)
    if not done:
        return result
    fixes.extend(Fix(action, result.tool_name, result.tool_call_id) for action in done)
    return result.model_copy(update={"content": [TextContent(text=text)]})


def _clean_args(message: AssistantMessage, fixes: list[Fix]) -> AssistantMessage:
    if not any(c.raw_arguments is not None for c in message.tool_calls):
        return message
    content = []
    for block in message.content:
        if isinstance(block, ToolCall) and block.raw_arguments is not None:
            fixes.append(Fix("invalid_tool_arguments", block.name, block.id, "arguments were not a JSON object"))
            block = block.model_copy(update={"arguments": {}, "raw_arguments": None})
        content.append(block)
    return message.model_copy(update={"content": content})


def synthetic_result(call: ToolCall) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=[TextContent(text=INTERRUPTED)], is_error=True
    )


def repair_history(messages: Sequence[AnyMessage]) -> tuple[list[AnyMessage], list[Fix]]:
    """A provider-valid copy of ``messages`` and the fixes made (empty when nothing was wrong)."""
    out: list[AnyMessage] = []
    fixes: list[Fix] = []
    group: AssistantMessage | None = None
    results: dict[str, ToolResultMessage] = {}
    after: list[AnyMessage] = []

    def close() -> None:
        if group is None:
            return
        out.append(group)
        for call in group.tool_calls:
            result = results.get(call.id)
            if result is None:
                fixes.append(Fix("synthetic_tool_result", call.name, call.id, INTERRUPTED))
                result = synthetic_result(call)
            out.append(result)
        out.extend(after)

    for message in messages:
        if isinstance(message, AssistantMessage) and is_live(message):
            close()
            group, results, after = _clean_args(message, fixes), {}, []
        elif isinstance(message, ToolResultMessage):
            calls = {c.id for c in group.tool_calls} if group is not None else set()
            if message.tool_call_id not in calls:
                fixes.append(Fix("orphan_tool_result_dropped", message.tool_name, message.tool_call_id))
            elif message.tool_call_id in results:
                fixes.append(Fix("duplicate_tool_result_dropped", message.tool_name, message.tool_call_id))
            else:
                if after:
                    fixes.append(Fix("tool_result_moved", message.tool_name, message.tool_call_id))
                results[message.tool_call_id] = _clean_result(message, fixes)
        elif group is not None:
            after.append(message)
        else:
            out.append(message)
    close()
    return out, fixes


class HistoryCheck:
    """``repair_history`` over a history that grows between calls, without walking again the part
    an earlier call found sound: linear in the turns of a run rather than quadratic.

    A sound prefix is remembered up to its last live assistant message (where the walk starts
    afresh: nothing before it changes what ``repair_history`` does after it), as the message
    objects themselves; a later history that starts with those same objects is walked from
    there only. Any other history (compacted, replaced, repaired) is walked whole. The answer
    is always ``repair_history``'s."""

    def __init__(self) -> None:
        self._sound: list[AnyMessage] = []

    def __call__(self, messages: Sequence[AnyMessage]) -> tuple[list[AnyMessage], list[Fix]]:
        start = len(self._sound)
        if start > len(messages) or any(a is not b for a, b in zip(self._sound, messages, strict=False)):
            start = 0
        tail = messages[start:]
        fixed, fixes = repair_history(tail)
        if fixes:
            self._sound = []
            return [*messages[:start], *fixed] if start else fixed, fixes
        if len(fixed) == len(tail) and all(a is b for a, b in zip(fixed, tail, strict=True)):
            boundary = next(
                (i for i in range(len(tail) - 1, -1, -1) if isinstance(tail[i], AssistantMessage) and is_live(tail[i])),
                0,
            )
            self._sound = [*self._sound[:start], *tail[:boundary]]
        else:  # sound but reordered: not a prefix to skip next time
            self._sound = []
        return [*messages[:start], *fixed] if start else fixed, fixes


ErrorClass = Literal["transient", "overflow", "history", "fatal"]

_TRANSIENT = re.compile(r"rate.?limit|overloaded|timeout|timed out|network|econnreset|etimedout", re.I)
_OVERFLOW = re.compile(
    r"prompt is too long|request_too_large|exceeds the context window|maximum context length|"
    r"context_length_exceeded|model_context_window_exceeded|too many tokens|token limit exceeded",
    re.I,
)
_HISTORY = re.compile(
    r"null.*tool_call|invalid type.*tool_calls|tool_calls\[\d+\]\.type.*null|tool_use.*without.*tool_result|"
    r"tool_result.*(?:without|no corresponding).*tool_use|tool_call_id.*not found|invalid.*utf-?8",
    re.I,
)


def classify_error(kind: str | None, text: str | None) -> ErrorClass:
    """How a failed request can be recovered: the provider's ``error_kind`` first, then gh-aw's
    message patterns (a rejected history is fatal to the provider but repairable here)."""
    if kind == "aborted":
        return "fatal"
    if kind in ("transient", "overflow"):
        return kind  # type: ignore[return-value]
    message = text or ""
    if _HISTORY.search(message):
        return "history"
    if _OVERFLOW.search(message):
        return "overflow"
    if kind is None and _TRANSIENT.search(message):
        return "transient"
    return "fatal"


def progress_summary(messages: Sequence[AnyMessage]) -> str:
    """A short, model-free account of what the run did so far (for recovery follow-ups)."""
    answers = [m for m in messages if isinstance(m, AssistantMessage) and is_live(m)]
    tools = Counter(c.name for m in answers for c in m.tool_calls)
    files: list[str] = []
    for m in answers:
        for c in m.tool_calls:
            path = c.arguments.get("path")
            if c.name in FILE_WRITERS and isinstance(path, str) and path not in files:
                files.append(path)
    parts = [f"Progress so far: {len(answers)} model response(s)"]
    parts.append("tools used: " + (", ".join(f"{n} x{k}" for n, k in tools.most_common()) or "none"))
    if files:
        parts.append("files written or edited: " + ", ".join(files[:20]))
    summary = "; ".join(parts) + "."
    last = next((m.text.strip() for m in reversed(answers) if m.text.strip()), "")
    if last:
        summary += f' Your last note: "{last[-600:]}"'
    return summary
