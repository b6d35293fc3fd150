"""Model resolution: a name from config.json to a catalog ``Model``.

The catalog is data (``models.json``); adding a model or alias is a data change. Rules:
``provider/model`` is always accepted (known entries get their limits, unknown ones defaults);
a bare name must be an alias or a catalog model id, else ``UnknownModelError`` lists close matches.
"""

from __future__ import annotations

import difflib
import json
from functools import cache
from importlib import resources
from typing import Any

from aw_action.ai.types import Model


class UnknownModelError(ValueError):
    """A bare model name the catalog does not know; the message lists close matches."""


@cache
def _catalog() -> dict[str, Any]:
    text = resources.files("aw_action.ai").joinpath("models.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def known_names() -> list[str]:
    data = _catalog()
    return sorted({*data["aliases"], *data["models"], *(m.split("/", 1)[1] for m in data["models"])})


def resolve_model(name: str) -> Model:
    """Resolve an alias, a bare catalog id or a ``provider/model`` reference."""
    data = _catalog()
    name = name.strip()
    ref = data["aliases"].get(name)
    if ref is None and "/" in name:
        ref = name
    if ref is None:
        matches = [m for m in data["models"] if m.split("/", 1)[1] == name]
        if matches:
            ref = matches[0]
    if ref is None:
        close = difflib.get_close_matches(name, known_names(), n=5, cutoff=0.5)
        hint = f"; did you mean: {', '.join(close)}" if close else ""
        raise UnknownModelError(f"unknown model {name!r} (use an alias or provider/model){hint}")
    provider, model_id = ref.split("/", 1)
    entry: dict[str, Any] = {**data["defaults"], **data["models"].get(ref, {})}
    api = entry.get("api") or data["provider_apis"].get(provider, "openai-completions")
    return Model(
        id=model_id,
        provider=provider,
        api=api,
        context_window=int(entry["context_window"]),
        max_output_tokens=int(entry["max_output_tokens"]),
        reasoning=bool(entry.get("reasoning", False)),
        price_ref=entry.get("price_ref"),
    )
