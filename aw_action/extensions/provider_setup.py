"""Built-in extension 1: provider setup.

Registers a provider for every credential present in the environment, as the catalog's
``providers`` data describes them (no URL or key in code):

- ``anthropic``: ``ANTHROPIC_API_KEY``, endpoint ``ANTHROPIC_BASE_URL`` (else the SDK default);
- ``openai``: ``OPENAI_API_KEY``, endpoint ``OPENAI_BASE_URL`` (else the SDK default);
- ``github`` (GitHub Models, OpenAI-compatible): ``COPILOT_GITHUB_TOKEN`` or ``GITHUB_TOKEN``,
  endpoint ``GITHUB_MODELS_BASE_URL`` (else the catalog's documented default).

The scripted provider (``faux``) is registered when the run's model is a ``faux/...`` model; it
plays the script named by ``harness.faux-script``, the ``AW_FAUX_SCRIPT`` variable, or the demo.

The run's own provider imports its SDK now, so a missing or broken SDK fails the invocation
(``SdkLoadError``, exit 2) before any session exists; the other providers import theirs on first
use. No credential at all for a credentialed model fails here with a message naming the
variables looked for. Retry tuning: ``AW_RETRY_MAX_ATTEMPTS``, ``AW_RETRY_BASE_DELAY_MS``,
``AW_RETRY_MAX_DELAY_MS``, ``AW_RETRY_JITTER_MS``; read timeout ``AW_PROVIDER_TIMEOUT_S``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aw_action.ai.catalog import ProviderSpec, UnknownModelError, provider_specs, resolve_model
from aw_action.ai.faux import FauxProvider, load_script
from aw_action.ai.retry import RetryPolicy
from aw_action.ai.sdk_provider import DEFAULT_TIMEOUT_S, SdkProvider
from aw_action.ai.types import Model
from aw_action.exits import InvocationError
from aw_action.extensions.api import ExtensionAPI


def faux_script_path(api: ExtensionAPI) -> Path | None:
    configured = api.config.harness.faux_script or api.env.get("AW_FAUX_SCRIPT")
    if not configured:
        return None
    path = Path(configured)
    return path if path.is_absolute() else api.services.config_dir / path


def credential(spec: ProviderSpec, env: Mapping[str, str]) -> str | None:
    return next((env[k].strip() for k in spec.key_env if env.get(k, "").strip()), None)


def _timeout(env: Mapping[str, str]) -> float:
    try:
        value = float(env.get("AW_PROVIDER_TIMEOUT_S", ""))
    except ValueError:
        return DEFAULT_TIMEOUT_S
    return value if value > 0 else DEFAULT_TIMEOUT_S


def build_provider(spec: ProviderSpec, key: str, api: ExtensionAPI) -> SdkProvider:
    """An SDK provider for ``spec``; the SDK itself is not imported yet."""
    env = api.env
    base_url = (env.get(spec.base_url_env, "").strip() if spec.base_url_env else "") or spec.default_base_url or None
    retry, timeout_s, scrub = RetryPolicy.from_env(env), _timeout(env), api.services.redactor.text
    if spec.sdk == "anthropic":
        from aw_action.ai.anthropic_messages import AnthropicProvider

        return AnthropicProvider(
            spec.name,
            key,
            base_url=base_url,
            retry=retry,
            timeout_s=timeout_s,
            scrub=scrub,
            price_provider=spec.price_provider,
        )
    from aw_action.ai.openai_provider import OpenAIProvider

    return OpenAIProvider(
        spec.name,
        key,
        base_url=base_url,
        retry=retry,
        timeout_s=timeout_s,
        scrub=scrub,
        price_provider=spec.price_provider,
        max_tokens_field=spec.max_tokens_field,
    )


def setup(api: ExtensionAPI) -> None:
    name = api.config.engine.model
    if name.startswith(("faux", "scripted")):
        api.register_provider("faux", FauxProvider(load_script(faux_script_path(api))))
    specs = provider_specs()
    providers: dict[str, SdkProvider] = {}
    for spec in specs.values():
        key = credential(spec, api.env) if spec.sdk else None
        if key is None:
            continue
        api.services.redactor.add(key)
        providers[spec.name] = build_provider(spec, key, api)
        api.register_provider(spec.name, providers[spec.name])
    try:
        model = resolve_model(name)
    except UnknownModelError:
        return  # the harness reports the unknown name
    wanted = specs.get(model.provider)
    if model.provider in providers:
        providers[model.provider].ensure_sdk()  # SdkLoadError propagates: exit 2
    elif not providers and wanted is not None and wanted.sdk:
        raise InvocationError(missing_credentials_message(model, []))
    # credentials for other providers only: the harness reports it once every extension loaded


def credential_hints() -> dict[str, str]:
    """Provider name to the variables that hold its credential (from the catalog)."""
    return {name: " or ".join(spec.key_env) for name, spec in provider_specs().items() if spec.key_env}


def missing_credentials_message(model: Model, registered: list[str]) -> str:
    """The one-line error when no registered provider can serve ``model``."""
    hints = credential_hints()
    looked_for = ", ".join(hints.values())
    need = hints.get(model.provider, f"credentials for provider {model.provider!r}")
    have = ", ".join(p for p in registered if p != "faux") or "none"
    return f"no credentials for model {model.ref}: set {need} (looked for {looked_for}; providers registered: {have})"
