"""Where a provider's requests go and what goes with them, as the catalog says.

Inside gh-aw's AWF sandbox the base URLs in the environment point at AWF's api-proxy. Nothing here
knows a provider by name:

- ``base_url``: a discovered URL (AWF ``/reflect``), else the ``base_url_env`` variable, else the
  catalog default; a URL with no path on a host listed in ``base_path_defaults`` gets that path
  (``OPENAI_BASE_URL=https://api.openai.com`` is served at ``/v1``, as AWF's proxy does it);
- ``request_headers``: the catalog's static headers plus one interaction id per run.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from functools import cache
from urllib.parse import urlsplit, urlunsplit

from aw_action.ai.catalog import ProviderSpec
from aw_action.environment.runner import RunnerFacts


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


def interaction_id(runner: RunnerFacts) -> str:
    """One id for every request of a run: ``<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>`` in Actions (as
    AWF's proxy derives it), else a UUID minted once per process."""
    run_id, attempt = runner.run_id, runner.run_attempt
    if run_id.isdigit():
        return f"{run_id}-{attempt if attempt.isdigit() else '1'}"
    return _process_interaction_id()


def request_headers(spec: ProviderSpec, runner: RunnerFacts) -> dict[str, str]:
    headers = dict(spec.headers)
    if spec.interaction_id_header:
        headers[spec.interaction_id_header] = interaction_id(runner)
    return headers
