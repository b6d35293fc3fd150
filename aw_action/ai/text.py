"""Make text from outside (model output, tool output, decoded JSON) safe to encode as UTF-8.

Python strings may hold lone surrogates (``"\\ud800"``): ``json.loads`` produces them from
``\\ud800`` escapes that a model or a server sent, and they make every UTF-8 encode (a file, a
JSON line, stdout, a subprocess argument) raise. These helpers replace each lone surrogate with
U+FFFD and keep valid surrogate pairs (two halves that arrived in separate chunks) as the one
character they stand for. Control characters are left alone: JSON escapes them.

Contract: the result of ``clean_text``/``clean_value`` always encodes as UTF-8. The fast path
(text that already encodes) costs one encode and returns the same object.
"""

from __future__ import annotations

from typing import Any

from aw_action.ai.types import AssistantMessage, TextContent, ThinkingContent

MAX_DEPTH = 256
"""``clean_value`` replaces anything nested deeper by a marker string instead of recursing."""


def is_clean(text: str) -> bool:
    """True when ``text`` encodes as UTF-8 as it is (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (valid pairs joined)."""
    if is_clean(text):
        return text
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_value(value: Any, depth: int = 0) -> Any:
    """A copy of a JSON-like value (dicts, lists, strings, scalars) with every string, and every
    dict key, cleaned. Containers are only rebuilt when something inside changed."""
    if isinstance(value, str):
        return clean_text(value)
    if depth >= MAX_DEPTH and isinstance(value, dict | list | tuple):
        return "[nested too deeply]"
    if isinstance(value, dict):
        items = [(clean_text(k) if isinstance(k, str) else k, clean_value(v, depth + 1)) for k, v in value.items()]
        if all(k is k0 and v is v0 for (k, v), (k0, v0) in zip(items, value.items(), strict=True)):
            return value
        return dict(items)
    if isinstance(value, list | tuple):
        cleaned = [clean_value(v, depth + 1) for v in value]
        if all(c is v for c, v in zip(cleaned, value, strict=True)):
            return value
        return cleaned if isinstance(value, list) else tuple(cleaned)
    return value


def clean_message(message: AssistantMessage) -> AssistantMessage:
    """Clean, in place, every string of an assistant message that came from a provider: text,
    thinking, tool call ids, names and arguments, the error text. Returns ``message``."""
    for block in message.content:
        if isinstance(block, TextContent):
            block.text = clean_text(block.text)
        elif isinstance(block, ThinkingContent):
            block.thinking = clean_text(block.thinking)
            if block.signature is not None:
                block.signature = clean_text(block.signature)
        else:
            block.id = clean_text(block.id)
            block.name = clean_text(block.name)
            block.arguments = clean_value(block.arguments)
            if block.raw_arguments is not None:
                block.raw_arguments = clean_text(block.raw_arguments)
    if message.error_message is not None:
        message.error_message = clean_text(message.error_message)
    return message
