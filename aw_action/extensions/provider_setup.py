"""Built-in extension 1: provider setup.

Registers a provider for every credential present in the environment, as the catalog's
``providers`` data describes them (no URL or key in code):

- ``anthropic``: ``ANTHROPIC_API_KEY``, or ``ANTHROPIC_AUTH_TOKEN`` sent as a bearer token;
  endpoint ``ANTHROPIC_BASE_URL`` (else the SDK default);
- ``openai``: ``OPENAI_API_KEY`` or ``CODEX_API_KEY``, endpoint ``OPENAI_BASE_URL`` (else the SDK
  default; ``https://api.openai.com`` without a path means ``/v1``);
- ``copilot`` (the Copilot API, as AWF's proxy exposes it): ``COPILOT_GITHUB_TOKEN``, endpoint
  ``COPILOT_API_URL`` (else the catalog default), with the catalog's Copilot headers;
- ``github`` (GitHub Models, OpenAI-compatible): ``COPILOT_GITHUB_TOKEN`` or ``GITHUB_TOKEN``,
  endpoint ``GITHUB_MODELS_BASE_URL`` (else the catalog's documented default).

Credentials are read by ``ai/credentials.py``. A real key is added to the redactor; an AWF
placeholder is not (it is no secret). With ``AWF_REFLECT_ENABLED`` set, AWF's ``/reflect``
(``ai/awf_reflect.py``) names each provider's endpoint (it wins over the environment's base URL)
and its models; a failed discovery is a warning and the environment is used.

The scripted provider (``faux``) is registered when the run's model is a ``faux/...`` model; it
plays the script named by ``harness.faux-script`` or the ``AW_FAUX_SCRIPT`` variable; without
one (or with one that cannot be read) the invocation fails (exit 2).

The run's own provider imports its SDK now, so a missing or broken SDK fails the invocation
(``SdkLoadError``, exit 2) before any session exists; the other providers import theirs on first
use. No credential at all for a credentialed model fails here with a message naming the
variables looked for. Retry tuning: ``AW_RETRY_MAX_ATTEMPTS``, ``AW_RETRY_BASE_DELAY_MS``,
``AW_RETRY_MAX_DELAY_MS``, ``AW_RETRY_JITTER_MS``; read timeout ``AW_PROVIDER_TIMEOUT_S``; a value
that is not a number (or not a positive one, where zero makes no sense) is an invocation error
naming the variable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.ai import awf_reflect
from aw_action.ai.catalog import ProviderSpec, provider_specs
from aw_action.ai.credentials import Credential, base_url, find_credential, request_headers
from aw_action.ai.faux import FauxProvider, load_script
from aw_action.ai.retry import RetryPolicy, RetrySettingError
from aw_action.ai.sdk_provider import DEFAULT_TIMEOUT_S, SdkProvider
from aw_action.ai.types import Model
from aw_action.exits import InvocationError, MissingCredentialsError
from aw_action.extensions.api import ExtensionAPI


def faux_script_path(api: ExtensionAPI) -> Path | None:
    configured = api.config.harness.faux_script or api.env.get("AW_FAUX_SCRIPT")
    if not configured:
        return None
    path = Path(configured)
    return path if path.is_absolute() else api.services.config_dir / path


def faux_script(api: ExtensionAPI) -> list[dict[str, Any]]:
    """The scripted provider's script; without one, or with one that cannot be played, the run
    does not start (exit 2): playing something else would write files the user never asked for."""
    path = faux_script_path(api)
    source = "harness.faux-script" if api.config.harness.faux_script else "AW_FAUX_SCRIPT"
    if path is None:
        raise InvocationError(
            f"model {api.model.ref} plays a script of answers, and none is set: set harness.faux-script "
            "in config.json (a path relative to it) or AW_FAUX_SCRIPT (examples/demo/config.json names one)"
        )
    try:
        return load_script(path)
    except FileNotFoundError:
        raise InvocationError(f"{source}: {path}: not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvocationError(f"{source}: {path}: not a faux script: {exc}") from None


def _timeout(env: Mapping[str, str]) -> float:
    return env_seconds(env, "AW_PROVIDER_TIMEOUT_S", DEFAULT_TIMEOUT_S)


def env_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A positive number of seconds from ``name``; unset or blank is ``default``, anything else
    that is not a positive finite number is an invocation error naming the variable."""
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvocationError(f"{name}: expected a positive number of seconds, got {raw[:40]!r}")
    return value


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    try:
        return RetryPolicy.from_env(env)
    except RetrySettingError as exc:
        raise InvocationError(str(exc)) from None


def build_provider(
    spec: ProviderSpec, cred: Credential, api: ExtensionAPI, discovered_url: str | None = None
) -> SdkProvider:
    """An SDK provider for ``spec``; the SDK itself is not imported yet."""
    env = api.env
    common: dict[str, Any] = {
        "base_url": base_url(spec, env, discovered_url),
        "retry": retry_policy(env),
        "timeout_s": _timeout(env),
        "scrub": api.services.redactor.text,
        "price_provider": spec.price_provider,
        "headers": request_headers(spec, env),
        "bearer": cred.bearer,
        "credential_var": cred.var,
    }
    if spec.sdk == "anthropic":
        from aw_action.ai.anthropic_messages import AnthropicProvider

        return AnthropicProvider(spec.name, cred.value, **common)
    from aw_action.ai.openai_provider import OpenAIProvider

    return OpenAIProvider(spec.name, cred.value, max_tokens_field=spec.max_tokens_field, **common)


def discover(api: ExtensionAPI, specs: Mapping[str, ProviderSpec]) -> awf_reflect.Reflection | None:
    """AWF's ``/reflect`` when ``AWF_REFLECT_ENABLED`` is set; None (with a warning) when it fails."""
    urls = [api.env.get(s.base_url_env, "") for s in specs.values() if s.base_url_env]
    try:
        reflection = awf_reflect.discover(api.env, [u for u in urls if u.strip()])
    except awf_reflect.ReflectError as exc:
        api.warn(f"AWF /reflect failed, using the environment's endpoints: {exc}")
        return None
    if reflection is not None:
        api.services.jsonl.line(f"aw-harness: {awf_reflect.describe(reflection)}")
    return reflection


def setup(api: ExtensionAPI) -> None:
    model = api.model
    retry_policy(api.env)  # a malformed setting fails the run, whichever provider it would tune
    _timeout(api.env)
    if model.provider == "faux":
        api.register_provider("faux", FauxProvider(faux_script(api)))
    specs = provider_specs()
    reflection = discover(api, specs)
    providers: dict[str, SdkProvider] = {}
    for spec in specs.values():
        cred = find_credential(spec, api.env) if spec.sdk else None
        if cred is None:
            continue
        if not cred.placeholder:
            api.services.redactor.add(cred.value)
        endpoint = reflection.endpoint_for(spec.reflect_names) if reflection else None
        providers[spec.name] = build_provider(spec, cred, api, endpoint.base_url if endpoint else None)
        api.register_provider(spec.name, providers[spec.name])
    wanted = specs.get(model.provider)
    names = wanted.reflect_names if wanted else ()
    if reflection is not None and (warning := awf_reflect.unlisted(reflection, names, model.id)):
        api.warn(warning)
    if model.provider in providers:
        providers[model.provider].ensure_sdk()  # SdkLoadError propagates: exit 2
    elif not providers and wanted is not None and wanted.sdk:
        raise missing_credentials(model, [])
    # credentials for other providers only: the harness reports it once every extension loaded


def credential_hints() -> dict[str, str]:
    """Provider name to the variables that hold its credential (from the catalog)."""
    return {name: " or ".join(spec.credential_env) for name, spec in provider_specs().items() if spec.credential_env}


def missing_credentials(model: Model, registered: list[str]) -> MissingCredentialsError:
    """The invocation error when no registered provider can serve ``model``."""
    spec = provider_specs().get(model.provider)
    variables = spec.credential_env if spec else ()
    return MissingCredentialsError(missing_credentials_message(model, registered), model.ref, variables)


def missing_credentials_message(model: Model, registered: list[str]) -> str:
    """The one-line error when no registered provider can serve ``model``."""
    hints = credential_hints()
    looked_for = ", ".join(hints.values())
    need = hints.get(model.provider, f"credentials for provider {model.provider!r}")
    have = ", ".join(p for p in registered if p != "faux") or "none"
    return f"no credentials for model {model.ref}: set {need} (looked for {looked_for}; providers registered: {have})"
