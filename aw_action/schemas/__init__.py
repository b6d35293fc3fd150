"""JSON Schemas shipped with the package (``events.schema.json``: one stderr JSONL line)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def load_schema(name: str) -> dict[str, Any]:
    """Load a schema by file name, e.g. ``load_schema("events.schema.json")``."""
    text = resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data
