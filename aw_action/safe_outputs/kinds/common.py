"""Pieces several kinds share: the tool text, the argument schemas, the common fields.

gh-aw's tool names and argument shapes (``actions/setup/js/safe_outputs_tools.json``), narrowed
to what the config allows, with the limits written into each description so the model knows
them before it calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.safe_outputs import fields

LATER = (
    "Nothing is written to GitHub now: the request is recorded and a later job with write access "
    "applies it after this run."
)


def string(description: str, max_chars: int) -> dict[str, Any]:
    return {"type": "string", "description": f"{description} (at most {max_chars:,} characters)"}


TITLE = string("Short title; it becomes the heading, so do not repeat it in the body", fields.TITLE_MAX_CHARS)
BODY = string("Markdown body", fields.BODY_MAX_CHARS)
LABELS = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Label names (they must exist in the repository)",
}


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def per_run(limit: int, noun: str) -> str:
    return f"At most {limit} {noun}{'' if limit == 1 else 's'} per run; a call past that is refused."


def join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def title(args: Mapping[str, Any]) -> str:
    return fields.text(args.get("title"), "title", max_chars=fields.TITLE_MAX_CHARS, single_line=True)


def body(args: Mapping[str, Any]) -> str:
    return fields.text(args.get("body"), "body", max_chars=fields.BODY_MAX_CHARS)


def label_names(value: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """A config's label list, checked as the agent's are (the location comes from pydantic)."""
    if value is None:
        return None
    return tuple(fields.labels(list(value), ""))
