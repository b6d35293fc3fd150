"""Model resolution: a name from config.json to a catalog ``Model``; provider facts as data.

The catalog is data (``models.json``); adding a model or alias is a data change. Rules:
``provider/model`` is always accepted (known entries get their limits, unknown ones defaults);
a bare name must be an alias or a catalog model id, else ``UnknownModelError`` lists close matches.
``provider_specs()`` says, per provider, which SDK and API serve it and which environment
variables hold its credential and endpoint (provider setup reads them; no URL lives in code).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
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
    api = entry.get("api") or data["providers"].get(provider, {}).get("api", "openai-completions")
    return Model(
        id=model_id,
        provider=provider,
        api=api,
        context_window=int(entry["context_window"]),
        max_output_tokens=int(entry["max_output_tokens"]),
        reasoning=bool(entry.get("reasoning", False)),
        price_ref=entry.get("price_ref"),
    )


@dataclass(frozen=True)
class ProviderSpec:
    """How to reach one provider: its SDK, default API, credential and endpoint variables."""

    name: str
    api: str
    sdk: str | None = None
    key_env: tuple[str, ...] = ()
    """Credential variables, first present wins."""
    base_url_env: str | None = None
    default_base_url: str | None = None
    """Only where the SDK has no default for this provider (GitHub Models)."""
    price_provider: str | None = None
    """Provider id to look prices up under, when it differs from ``name``."""
    max_tokens_field: str | None = None
    """Chat Completions field for the output limit, when not ``max_completion_tokens``."""


def provider_specs() -> dict[str, ProviderSpec]:
    """Every provider the catalog knows, in catalog order."""
    specs: dict[str, ProviderSpec] = {}
    for name, raw in _catalog()["providers"].items():
        specs[name] = ProviderSpec(
            name=name,
            api=raw["api"],
            sdk=raw.get("sdk"),
            key_env=tuple(raw.get("key_env", ())),
            base_url_env=raw.get("base_url_env"),
            default_base_url=raw.get("default_base_url"),
            price_provider=raw.get("price_provider"),
            max_tokens_field=raw.get("max_tokens_field"),
        )
    return specs


def credential_env_vars() -> frozenset[str]:
    """Every environment variable that holds a model credential: each provider's ``key_env`` and
    the catalog's ``other_credentials`` (other engines' keys the harness never uses but must not
    pass on). The harness keeps these from the agent's tools."""
    names = {name for spec in provider_specs().values() for name in spec.key_env}
    names.update(_catalog().get("other_credentials", ()))
    return frozenset(names)
