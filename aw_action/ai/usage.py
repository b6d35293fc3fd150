"""Usage normalisation: each provider's raw usage object to the one ``Usage`` type.

The rules (see ``types.py``): ``input`` counts prompt tokens neither read from nor written to a
cache; ``output`` excludes reasoning tokens the provider reports separately. Each function takes
the provider's usage as a plain dict (``model_dump`` of the SDK object, or the JSON of a
recording) and keeps it verbatim in ``raw``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from aw_action.ai.types import Usage


def _int(data: Mapping[str, Any] | None, *path: str) -> int:
    value: Any = data
    for key in path:
        if not isinstance(value, Mapping):
            return 0
        value = value.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def without_nulls(raw: object) -> dict[str, Any]:
    """A usage object of the wire as the SDK's ``model_dump(exclude_none=True)`` gave it: its
    ``null`` members left out, at every depth; anything but an object is an empty usage."""
    return _without_nulls(raw) if isinstance(raw, dict) else {}


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def from_anthropic(raw: Mapping[str, Any]) -> Usage:
    """Anthropic reports the three input classes separately already; ``output_tokens`` includes
    thinking, split out when ``output_tokens_details.thinking_tokens`` is reported."""
    output = _int(raw, "output_tokens")
    reasoning = min(output, _int(raw, "output_tokens_details", "thinking_tokens"))
    return Usage(
        input=_int(raw, "input_tokens"),
        cache_read=_int(raw, "cache_read_input_tokens"),
        cache_write=_int(raw, "cache_creation_input_tokens"),
        output=output - reasoning,
        reasoning=reasoning,
        raw=dict(raw),
    )


def merge_anthropic(start: Mapping[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    """``message_delta`` usage is cumulative and may omit fields: it overrides what it carries."""
    merged = dict(start)
    merged.update({k: v for k, v in delta.items() if v is not None})
    return merged


def from_openai_chat(raw: Mapping[str, Any]) -> Usage:
    """Chat Completions: ``prompt_tokens`` includes cached tokens, ``completion_tokens`` includes
    reasoning tokens. Some compatible servers also report cache writes."""
    cached = _int(raw, "prompt_tokens_details", "cached_tokens")
    written = _int(raw, "prompt_tokens_details", "cache_write_tokens") or _int(raw, "cache_creation_input_tokens")
    completion = _int(raw, "completion_tokens")
    reasoning = min(completion, _int(raw, "completion_tokens_details", "reasoning_tokens"))
    return Usage(
        input=max(0, _int(raw, "prompt_tokens") - cached - written),
        cache_read=cached,
        cache_write=written,
        output=completion - reasoning,
        reasoning=reasoning,
        raw=dict(raw),
    )


def from_openai_responses(raw: Mapping[str, Any]) -> Usage:
    """Responses API: ``input_tokens`` includes cache reads (``cached_tokens``) and cache writes
    (``cache_write_tokens``, GPT-5.6 on), ``output_tokens`` includes reasoning."""
    cached = _int(raw, "input_tokens_details", "cached_tokens")
    written = _int(raw, "input_tokens_details", "cache_write_tokens")
    output = _int(raw, "output_tokens")
    reasoning = min(output, _int(raw, "output_tokens_details", "reasoning_tokens"))
    return Usage(
        input=max(0, _int(raw, "input_tokens") - cached - written),
        cache_read=cached,
        cache_write=written,
        output=output - reasoning,
        reasoning=reasoning,
        raw=dict(raw),
    )


def estimate_tokens(text: str) -> int:
    """About four characters a token, rounded up; the estimate used wherever no tokenizer is
    (the scripted provider, provenance, compaction, a server that reports no usage)."""
    return math.ceil(len(text) / 4)
