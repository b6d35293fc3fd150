"""Where a provider's credential, endpoint and extra headers come from, as the catalog says.

Inside gh-aw's AWF sandbox there is no real key: AWF's api-proxy puts placeholders in the
environment (``ANTHROPIC_AUTH_TOKEN``, ``OPENAI_API_KEY``/``CODEX_API_KEY``,
``COPILOT_GITHUB_TOKEN``) and base URLs that point at itself, then swaps in the real key on the
way out. These functions read either form the same way; nothing here knows a provider by name.

- ``find_credential``: the first ``key_env`` variable set, else the first ``bearer_env`` one;
- ``base_url``: a discovered URL (AWF ``/reflect``), else the ``base_url_env`` variable, else the
  catalog default; a URL with no path on a host listed in ``base_path_defaults`` gets that path
  (``OPENAI_BASE_URL=https://api.openai.com`` is served at ``/v1``, as AWF's proxy does it);
- ``request_headers``: the catalog's static headers plus one interaction id per run.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from urllib.parse import urlsplit, urlunsplit

from aw_action.ai.catalog import ProviderSpec, is_awf_placeholder


@dataclass(frozen=True)
class Credential:
    """A credential value and how to send it. ``bearer``: as ``Authorization: Bearer`` (the
    anthropic SDK's ``auth_token``) rather than the SDK's API-key header."""

    value: str
    var: str
    bearer: bool = False

    @property
    def placeholder(self) -> bool:
        """An AWF placeholder: the proxy holds the real key; the value is no secret."""
        return is_awf_placeholder(self.value)


def find_credential(spec: ProviderSpec, env: Mapping[str, str]) -> Credential | None:
    for var in spec.key_env:
        if env.get(var, "").strip():
            return Credential(env[var].strip(), var)
    for var in spec.bearer_env:
        if env.get(var, "").strip():
            return Credential(env[var].strip(), var, bearer=True)
    return None


def base_url(spec: ProviderSpec, env: Mapping[str, str], discovered: str | None = None) -> str | None:
    """The endpoint to send requests to; None means the SDK's own default."""
    configured = env.get(spec.base_url_env, "").strip() if spec.base_url_env else ""
    url = discovered or configured or spec.default_base_url
    if not url:
        return None
    parts = urlsplit(url)
    default_path = spec.base_path_defaults.get((parts.hostname or "").lower())
    if default_path and parts.path.strip("/") == "":
        return urlunsplit((parts.scheme, parts.netloc, default_path, parts.query, parts.fragment))
    return url.rstrip("/") if parts.path.endswith("/") else url


@cache
def _process_interaction_id() -> str:
    return str(uuid.uuid4())


def interaction_id(env: Mapping[str, str]) -> str:
    """One id for every request of a run: ``<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>`` in Actions (as
    AWF's proxy derives it), else a UUID minted once per process."""
    run_id = env.get("GITHUB_RUN_ID", "").strip()
    if run_id.isdigit():
        attempt = env.get("GITHUB_RUN_ATTEMPT", "").strip()
        return f"{run_id}-{attempt if attempt.isdigit() else '1'}"
    return _process_interaction_id()


def request_headers(spec: ProviderSpec, env: Mapping[str, str]) -> dict[str, str]:
    headers = dict(spec.headers)
    if spec.interaction_id_header:
        headers[spec.interaction_id_header] = interaction_id(env)
    return headers
