"""Model resolution: a name from config.json to a catalog ``Model``; provider facts as data.

The catalog is data (``models.json``); adding a model or alias is a data change. Rules:
``provider/model`` is always accepted (known entries get their limits, unknown ones defaults);
a bare name must be an alias or a catalog model id, else ``UnknownModelError`` lists close matches.
``provider_specs()`` says, per provider, its default API, the transport that builds its SDK client
(``ai/registry.py``), which variable names its endpoint (no URL lives in code) and the settings its
client needs (a cloud's region, project, API version: ``ai/settings.py``); which variables hold its
credential is the credential table's (``ai/credentials.py``).

A cloud spells a vendor's model id its own way (Bedrock ``us.anthropic.claude-sonnet-4-5-20250929-v1:0``,
Vertex ``claude-sonnet-4-5@20250929``); ``canonical_model_id`` reads it as the vendor's id
(``claude-sonnet-4-5``) by the catalog's ``model_id_forms``, so an unlisted cloud model gets the
limits of the vendor's entry (the provider's ``limits_from``) and its effective-token multiplier.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from dataclasses import field
from functools import cache
from importlib import resources
from typing import Any

from aw_action.ai.types import Model
from aw_action.lazy_dataclass import dataclass


class UnknownModelError(ValueError):
    """A bare model name the catalog does not know; the message lists close matches."""


@cache
def catalog_data() -> dict[str, Any]:
    """``models.json``, parsed once."""
    text = resources.files("aw_action.ai").joinpath("models.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def known_names() -> list[str]:
    data = catalog_data()
    return sorted({*data["aliases"], *data["models"], *(m.split("/", 1)[1] for m in data["models"])})


def provider_hint(env: Mapping[str, str]) -> str | None:
    """The catalog provider that gh-aw's ``GH_AW_LLM_PROVIDER`` names (``github`` is the Copilot
    API), or None when it is unset or unknown."""
    value = env.get("GH_AW_LLM_PROVIDER", "").strip().lower()
    hinted: str | None = catalog_data()["gh_aw_llm_providers"].get(value)
    return hinted


def qualify_model(name: str, hint: str | None) -> str:
    """``name`` with a provider: unchanged when it names one (``provider/model``) or there is no
    hint; else the hinted provider's alias or catalog entry for it, an alias that already points
    at the hinted provider, or ``hint/name`` as written. Aliases of other providers are ignored
    under a hint: the hint names the only provider the run can reach."""
    data = catalog_data()
    name = name.strip()
    if hint is None or "/" in name:
        return name
    hinted = f"{hint}/{name}"
    if hinted in data["aliases"]:
        return str(data["aliases"][hinted])
    target = data["aliases"].get(name)
    if hinted not in data["models"] and isinstance(target, str) and target.startswith(f"{hint}/"):
        return target
    return hinted


def resolve_model(name: str) -> Model:
    """Resolve an alias, a bare catalog id or a ``provider/model`` reference."""
    data = catalog_data()
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
    spec = data["providers"].get(provider, {})
    entry: dict[str, Any] = {**data["defaults"], **_vendor_entry(spec, model_id), **data["models"].get(ref, {})}
    api = entry.get("api") or _api_by_pattern(spec, model_id) or spec.get("api", "openai-completions")
    return Model(
        id=model_id,
        provider=provider,
        api=api,
        context_window=int(entry["context_window"]),
        max_output_tokens=int(entry["max_output_tokens"]),
        reasoning=bool(entry.get("reasoning", False)),
        price_ref=entry.get("price_ref"),
        price_provider=entry.get("price_provider"),
    )


def canonical_model_id(model_id: str) -> str:
    """The vendor's own id of a cloud's model id (``model_id_forms``); other ids unchanged."""
    for pattern, replacement in catalog_data()["model_id_forms"]:
        canonical, count = re.subn(pattern, replacement, model_id)
        if count:
            return canonical
    return model_id


def _vendor_entry(spec: Mapping[str, Any], model_id: str) -> dict[str, Any]:
    """The limits of the vendor's catalog entry for a cloud's model (``limits_from``), if any."""
    vendor = spec.get("limits_from")
    if not vendor:
        return {}
    found: dict[str, Any] = catalog_data()["models"].get(f"{vendor}/{canonical_model_id(model_id)}", {})
    return {k: v for k, v in found.items() if k in ("context_window", "max_output_tokens", "reasoning")}


def _api_by_pattern(spec: Mapping[str, Any], model_id: str) -> str | None:
    return next((str(api) for pattern, api in spec.get("api_patterns", ()) if re.search(pattern, model_id)), None)


@dataclass(frozen=True)
class SettingSpec:
    """A value a provider's client needs besides its credential (``providers.<name>.settings``)."""

    name: str
    env: tuple[str, ...]
    """Variables that may hold it, first present wins."""
    default: str | None = None
    fix: str = ""
    """What to do when it is missing, in the user's terms."""


@dataclass(frozen=True)
class ProviderSpec:
    """How to reach one provider: its default API, the transport of its SDK client, its endpoint."""

    name: str
    api: str
    transport: str | None = None
    """A row of ``registry.TRANSPORTS``; None: served in-process (``faux``)."""
    base_url_env: str | None = None
    default_base_url: str | None = None
    """Only where the SDK has no default for this provider (GitHub Models)."""
    price_provider: str | None = None
    """Provider id to look prices up under, when it differs from ``name``."""
    max_tokens_field: str | None = None
    """Chat Completions field for the output limit, when not ``max_completion_tokens``."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Headers sent with every request (the Copilot API's integration id and initiator)."""
    interaction_id_header: str | None = None
    """Header carrying one id per run (``<run id>-<attempt>``), where the API keys its cache on it."""
    base_path_defaults: Mapping[str, str] = field(default_factory=dict)
    """Host -> path a base URL without a path gets (``api.openai.com`` -> ``/v1``)."""
    reflect_names: tuple[str, ...] = ()
    """Names AWF's ``/reflect`` may give this provider's endpoint."""
    settings: tuple[SettingSpec, ...] = ()
    base_url_fix: str | None = None
    """Set when the provider has no endpoint unless ``base_url_env`` names one: how to name it."""
    keyless: bool = False
    """Built once its endpoint is named, with or without a credential (a local server)."""
    credential_fix: str | None = None
    """How to provide the credential, added to the missing-credential message."""
    not_found_fix: str | None = None
    """What a 404 usually means for this provider (a model not enabled, a missing deployment)."""


def provider_specs() -> dict[str, ProviderSpec]:
    """Every provider the catalog knows, in catalog order."""
    specs: dict[str, ProviderSpec] = {}
    for name, raw in catalog_data()["providers"].items():
        specs[name] = ProviderSpec(
            name=name,
            api=raw["api"],
            transport=raw.get("transport"),
            base_url_env=raw.get("base_url_env"),
            default_base_url=raw.get("default_base_url"),
            price_provider=raw.get("price_provider"),
            max_tokens_field=raw.get("max_tokens_field"),
            headers=dict(raw.get("headers", {})),
            interaction_id_header=raw.get("interaction_id_header"),
            base_path_defaults=dict(raw.get("base_path_defaults", {})),
            reflect_names=tuple(raw.get("reflect_names", ())),
            settings=tuple(
                SettingSpec(
                    name=key,
                    env=tuple(setting["env"]),
                    default=setting.get("default"),
                    fix=setting.get("fix", ""),
                )
                for key, setting in raw.get("settings", {}).items()
            ),
            base_url_fix=raw.get("base_url_fix"),
            keyless=bool(raw.get("keyless", False)),
            credential_fix=raw.get("credential_fix"),
            not_found_fix=raw.get("not_found_fix"),
        )
    return specs
