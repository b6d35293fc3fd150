"""Server tools as the providers accept them: names and parameter schemas.

A tool is offered as ``mcp__<server>__<tool>``. Every provider takes names matching
``^[a-zA-Z0-9_-]{1,64}$`` (Anthropic's and OpenAI's rule; Gemini's is looser), so a name with
other characters has them replaced by ``_`` and a name too long is cut and given a stable suffix
(``_`` and 8 hex digits of the SHA-256 of ``server/tool``): the same tool gets the same name in
every run. Two tools that still end with one name are refused (``collision``).

Schemas: the top level is an object with ``properties`` (Anthropic requires ``type: object``;
OpenAI refuses a top-level ``anyOf``/``oneOf``/``allOf``/``enum``/``not``); ``$schema`` and
``$id`` go; a schema ``jsonschema`` cannot check (the loop validates arguments against it)
becomes the open object schema. Descriptions are one paragraph of at most
``MAX_DESCRIPTION`` characters, without control characters: a server's text is a stranger's.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

MAX_NAME = 64
PREFIX = "mcp"
MAX_DESCRIPTION = 1024
_INVALID = re.compile(r"[^a-zA-Z0-9_-]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
TOP_LEVEL_REFUSED = ("anyOf", "oneOf", "allOf", "enum", "not", "$schema", "$id")
OPEN_OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def tool_name(server: str, tool: str) -> str:
    """The agent's name for ``tool`` of ``server`` (see the module docstring)."""
    raw = f"{PREFIX}__{server}__{tool}"
    name = _INVALID.sub("_", raw)
    if len(name) <= MAX_NAME and name == raw:
        return name
    suffix = hashlib.sha256(f"{server}/{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{suffix}"


def server_of(name: str) -> str | None:
    """The server of an ``mcp__<server>__...`` tool name, or ``None`` for any other tool."""
    if not name.startswith(f"{PREFIX}__"):
        return None
    rest = name[len(PREFIX) + 2 :]
    server, sep, _ = rest.partition("__")
    return server if sep else None


def description(text: str | None, server: str) -> str:
    """The tool's description as the model reads it: marked as the server's, one bounded paragraph."""
    clean = _CONTROL.sub("", " ".join((text or "").split()))
    if len(clean) > MAX_DESCRIPTION:
        clean = clean[: MAX_DESCRIPTION - 1] + "…"
    return f"[MCP server {server}] {clean}".rstrip()


def parameters(schema: Any) -> tuple[dict[str, Any], str | None]:
    """``schema`` as the providers take it, and what was changed that the model may notice
    (``None`` when nothing was)."""
    if not isinstance(schema, dict):
        return dict(OPEN_OBJECT), "its input schema was not an object; any arguments are passed"
    out = {k: v for k, v in schema.items() if k not in TOP_LEVEL_REFUSED}
    note = None
    if out.get("type") != "object":
        out["type"] = "object"
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    required = out.get("required")
    if required is not None:
        kept = (
            [r for r in required if isinstance(r, str) and r in out["properties"]] if isinstance(required, list) else []
        )
        if kept:
            out["required"] = kept
        else:
            out.pop("required")
    if not _checkable(out):
        return dict(OPEN_OBJECT), "its input schema was not a valid JSON Schema; any arguments are passed"
    return out, note


def _checkable(schema: dict[str, Any]) -> bool:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
        json.dumps(schema)
    except (SchemaError, TypeError, ValueError, RecursionError):
        return False
    return True


def schema_bytes(name: str, text: str, schema: dict[str, Any]) -> int:
    """What one tool costs in the request: its name, description and schema as JSON."""
    return len(name) + len(text.encode()) + len(json.dumps(schema, separators=(",", ":")).encode())
