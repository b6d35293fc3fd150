"""The environment the agent's tools get: the run's, minus every credential it does not need.

Dropped, whatever the config says:
- every variable of the credential table (``ai/credentials.py``: provider keys, other engines'
  keys, the GitHub tokens);
- the Actions runtime: ``ACTIONS_RUNTIME_TOKEN``/``_URL``, ``ACTIONS_RESULTS_URL``,
  ``ACTIONS_CACHE_URL``, ``ACTIONS_ID_TOKEN_REQUEST_TOKEN``/``_URL`` (artifact, cache and OIDC
  credentials are the action's), every ``ACTIONS_*`` variable and every ``INPUT_*`` variable
  (action inputs hold the key inputs);
- OpenTelemetry exporter headers (``OTEL_EXPORTER_OTLP*_HEADERS``);
- any variable whose name says it holds a credential (``*TOKEN``, ``*API_KEY``, ``*SECRET*``,
  ``*PASSWORD*``, ...: ``ai/credentials.is_credential_name``), and any variable whose value
  contains a configured secret (a key copied into ``MY_SETTING`` is still a key).

Kept only when GitHub access is granted (``github_access``): the credential table's GitHub tokens
(``GITHUB_TOKEN`` and ``GH_TOKEN``), so the agent's ``gh`` and ``git`` can authenticate. The
summary should say when it was granted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aw_action.ai.credentials import github_access_variables, is_credential_name

GITHUB_TOKEN_VARS = github_access_variables()
RUNTIME_CREDENTIALS = ("ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN")
"""The job's own credentials (artifacts, cache, OIDC): the action's, never the agent's or a record's."""
RUNTIME_VARS = frozenset(
    {
        *RUNTIME_CREDENTIALS,
        "ACTIONS_RUNTIME_URL",
        "ACTIONS_RESULTS_URL",
        "ACTIONS_CACHE_URL",
        "ACTIONS_ID_TOKEN_REQUEST_URL",
    }
)
MIN_VALUE_MATCH = 8
"""Secrets shorter than this are not looked for inside other variables' values."""


@dataclass(frozen=True)
class GithubAccess:
    granted: bool
    reason: str


def github_access(tools_github: object) -> GithubAccess:
    """Whether the config grants the agent GitHub access (its ``GITHUB_TOKEN``).

    ``tools_github`` is ``tools.github`` *as the config wrote it*: ``None`` when absent,
    ``False`` to refuse, ``True`` or a mapping (``{"toolsets": [...]}``) to grant. A default the
    config did not write must be passed as ``None``: access is opt-in.
    """
    if tools_github is None:
        return GithubAccess(False, "the config does not grant GitHub access (no tools.github)")
    if tools_github is False:
        return GithubAccess(False, "the config refuses GitHub access (tools.github: false)")
    if isinstance(tools_github, Mapping):
        toolsets = tools_github.get("toolsets") or []
        detail = f" (toolsets: {', '.join(map(str, toolsets))})" if toolsets else ""
        return GithubAccess(True, f"the config grants GitHub access: tools see GITHUB_TOKEN{detail}")
    return GithubAccess(True, "the config grants GitHub access: tools see GITHUB_TOKEN")


def is_withheld_name(name: str) -> bool:
    upper = name.upper()
    return upper.startswith(("INPUT_", "ACTIONS_")) or name in RUNTIME_VARS or is_credential_name(name)


def tool_environment(env: Mapping[str, str], *, github: GithubAccess, secrets: Iterable[str] = ()) -> dict[str, str]:
    """``env`` without what the module docstring lists; ``secrets`` are the run's known secret
    values (the redactor's), looked for inside every kept value."""
    probes = [s for s in {s.strip() for s in secrets} if len(s) >= MIN_VALUE_MATCH]
    out: dict[str, str] = {}
    for name, value in env.items():
        granted = github.granted and name in GITHUB_TOKEN_VARS
        if not granted and is_withheld_name(name):
            continue
        if not granted and any(p in value for p in probes):
            continue
        out[name] = value
    return out
