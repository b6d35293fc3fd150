"""The run's providers, built from the environment: one for every catalog provider whose credential
is present (``ai/credentials.py``), at the endpoint the environment or AWF's ``/reflect`` names
(``ai/endpoints.py``, ``ai/awf_reflect.py``), over its SDK (``ai/registry.py``), and the scripted
provider for a ``faux`` model.

- Retry tuning ``AW_RETRY_MAX_ATTEMPTS``, ``AW_RETRY_BASE_DELAY_MS``, ``AW_RETRY_MAX_DELAY_MS``,
  ``AW_RETRY_JITTER_MS`` and the read timeout ``AW_PROVIDER_TIMEOUT_S`` are read first: a value
  that is not a number (or not a positive one, where zero makes no sense) is an
  ``InvocationError`` naming the variable, whichever provider it would tune.
- With ``AWF_REFLECT_ENABLED`` set, AWF's ``/reflect`` names each provider's endpoint (it wins over
  the environment's base URL) and its models; a failed discovery is a warning and the environment
  is used; a model the endpoint does not list is a warning.
- The run's own provider imports its SDK now, so a missing or broken SDK fails the invocation
  (``SdkLoadError``, exit 2) before any session exists; the others import theirs on first use.
- A provider's settings (a cloud's region, project, API version; ``ai/settings.py``) and, where it
  has no default endpoint, its endpoint variable: missing for the run's own provider, that is an
  ``InvocationError`` naming the variable and its fix; any other provider is then not built.
  A ``keyless`` provider (an OpenAI-compatible local server) is built once its endpoint is named,
  with or without its key.
- No credential at all for a credentialed model is ``missing_credentials`` (exit 2). When only
  other providers' credentials are present the caller decides (a user extension may still
  register the provider).

Real keys (and the parts that go with them: AWS's secret key and session token) are returned as
``secrets`` for the redactor; AWF placeholders are no secrets. ``reveal`` is told the secrets a
provider meets later (what a credentials file holds, the access tokens a cloud's client mints).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

from aw_action.ai import awf_reflect
from aw_action.ai.catalog import ProviderSpec, provider_specs
from aw_action.ai.credentials import Credential, find_credential, missing_credentials
from aw_action.ai.endpoints import base_url, request_headers
from aw_action.ai.faux import FauxProvider
from aw_action.ai.retry import RetryPolicy, RetrySettingError
from aw_action.ai.sdk_provider import DEFAULT_TIMEOUT_S, SdkProvider
from aw_action.ai.settings import MissingSettingError, provider_settings, require_endpoint
from aw_action.ai.types import Model, Provider
from aw_action.environment.runner import RunnerFacts
from aw_action.environment.tuning import PROVIDER_TIMEOUT_S
from aw_action.exits import InvocationError
from aw_action.lazy_dataclass import dataclass

TIMEOUT_ENV = PROVIDER_TIMEOUT_S.name


@dataclass
class ProviderSet:
    """What ``build_providers`` made, and what the caller must announce."""

    providers: dict[str, Provider] = field(default_factory=dict)
    secrets: list[str] = field(default_factory=list)
    """The real credentials the providers hold (for the redactor)."""
    notes: list[str] = field(default_factory=list)
    """Lines for the log (what AWF's ``/reflect`` reported)."""
    warnings: list[str] = field(default_factory=list)
    awf_routes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """The providers AWF's api-proxy serves (an AWF placeholder credential, or an endpoint its
    ``/reflect`` named), each with the models ``/reflect`` lists for it (empty: not listed).
    Inside gh-aw a model switch stays within these (``harness/model_switch.py``)."""


def retry_policy(env: Mapping[str, str]) -> RetryPolicy:
    try:
        return RetryPolicy.from_env(env)
    except RetrySettingError as exc:
        raise InvocationError(str(exc)) from None


def build_providers(
    model: Model,
    env: Mapping[str, str],
    *,
    scrub: Callable[[str], str] | None = None,
    faux_turns: list[dict[str, Any]] | None = None,
    reveal: Callable[[str], None] | None = None,
    runner: RunnerFacts | None = None,
) -> ProviderSet:
    """The providers for a run of ``model`` (see the module docstring). ``faux_turns`` is the
    scripted provider's script, for a ``faux`` model. ``runner``: the run's record of the
    runner's facts (read from ``env`` when not given)."""
    retry, timeout_s = retry_policy(env), PROVIDER_TIMEOUT_S.number(env, DEFAULT_TIMEOUT_S) or DEFAULT_TIMEOUT_S
    out = ProviderSet()
    if model.provider == "faux":
        out.providers["faux"] = FauxProvider(faux_turns or [])
    specs = provider_specs()
    reflection = _discover(env, specs, out)
    built: dict[str, SdkProvider] = {}
    for spec in specs.values():
        credential = _credential(spec, env)
        if credential is None:
            continue
        endpoint = reflection.endpoint_for(spec.reflect_names) if reflection else None
        url = base_url(spec, env, endpoint.base_url if endpoint else None)
        try:
            require_endpoint(spec, url)
            settings = provider_settings(spec, env)
        except MissingSettingError:
            if spec.name == model.provider:
                raise
            continue
        if not credential.placeholder:
            out.secrets.extend(credential.secrets)
        if credential.placeholder or endpoint is not None:
            out.awf_routes[spec.name] = tuple(endpoint.models or ()) if endpoint is not None else ()
        runner = runner or RunnerFacts.read(env)
        headers = request_headers(spec, runner)
        built[spec.name] = SdkProvider(
            spec,
            credential,
            base_url=url,
            headers=headers,
            retry=retry,
            timeout_s=timeout_s,
            scrub=scrub,
            settings=settings,
            reveal=reveal,
        )
    out.providers.update(built)
    wanted = specs.get(model.provider)
    names = wanted.reflect_names if wanted else ()
    if reflection is not None and (warning := awf_reflect.unlisted(reflection, names, model.id)):
        out.warnings.append(warning)
    if model.provider in built:
        built[model.provider].ensure_sdk()  # SdkLoadError propagates: exit 2
    elif not built and wanted is not None and wanted.transport:
        raise missing_credentials(model, [])
    return out


def _credential(spec: ProviderSpec, env: Mapping[str, str]) -> Credential | None:
    """``spec``'s credential; an empty one for a ``keyless`` provider whose endpoint is named."""
    if not spec.transport:
        return None
    found = find_credential(spec.name, env)
    if found is None and spec.keyless and spec.base_url_env and env.get(spec.base_url_env, "").strip():
        return Credential("", "")
    return found


def _discover(
    env: Mapping[str, str], specs: Mapping[str, ProviderSpec], out: ProviderSet
) -> awf_reflect.Reflection | None:
    """AWF's ``/reflect`` when ``AWF_REFLECT_ENABLED`` is set; None (with a warning) when it fails."""
    urls = [env.get(s.base_url_env, "") for s in specs.values() if s.base_url_env]
    try:
        reflection = awf_reflect.discover(env, [u for u in urls if u.strip()])
    except awf_reflect.ReflectError as exc:
        out.warnings.append(f"AWF /reflect failed, using the environment's endpoints: {exc}")
        return None
    if reflection is not None:
        out.notes.append(f"aw-harness: {awf_reflect.describe(reflection)}")
    return reflection
