"""The environment the agent's tools get: an allow-list, the one table of what it may hold.

Like codex's ``shell_environment_policy`` with ``inherit = "core"``, a variable reaches the tools
only when it is one of:

- the core set (``CORE``, ``CORE_PREFIXES``): the shell's basics (``PATH``, ``HOME``, ``LANG``
  and ``LC_*``, ``TERM``, ``USER``, ``TMPDIR``, ``TZ``, ...), ``CI``, the runner's facts
  (``RUNNER_OS``/``_ARCH``/...), GitHub's non-secret ``GITHUB_*`` facts (the runner's own list:
  ``GITHUB_REPOSITORY``, ``GITHUB_SHA``, ``GITHUB_WORKSPACE``, the file commands' paths, ...; never
  ``GITHUB_TOKEN``), ``gh``'s repository and host (``GH_REPO``, ``GH_HOST``), the network's proxy
  and CA-bundle settings, gh-aw's facts for the agent;
- what toolchain setup steps export (``TOOLCHAIN``, ``TOOLCHAIN_PATTERN``: ``JAVA_HOME*``,
  ``GOROOT``, ``pythonLocation``, ``Python*_ROOT_DIR``, ``PKG_CONFIG_PATH``, ``DOTNET_ROOT``,
  ``CARGO_HOME``, ``RUSTUP_HOME``, ``VIRTUAL_ENV``, ...);
- granted by name by the config (``tools.pass-env``, the action's ``pass-env`` input, and the
  names ``tools.bash-variables`` lets a command spell): passed as they are;
- ``GITHUB_TOKEN``/``GH_TOKEN`` when GitHub access is granted (``github_access``).

A core or toolchain variable whose value holds a known secret or a secret by shape
(``secret_shapes.py``: a ``ghp_`` token, a URL with a password) is withheld all the same. Never
passed, whatever the config grants (``refused_grant``): the action's inputs (``INPUT_*``), the
Actions runtime (``ACTIONS_*``: artifact, cache and OIDC credentials), the harness's own
(``AW_*``), the image's settings for the harness's Python (``HARNESS_OWN``: ``PYTHONSAFEPATH``
would keep a repository's ``python3 test_app.py`` from importing its neighbour ``app.py``), the
credential table's variables and every name that says it holds a credential (those need
``tools.github`` or nothing).

``credential_free`` is the older, wider rule (everything but credentials), for the harness's own
children that are not the agent's tools and for wiping the process's initial environment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from aw_action.ai.credentials import github_access_variables, is_credential_name
from aw_action.environment.tool_env_table import (
    CORE,
    CORE_PREFIXES,
    HARNESS_OWN,
    NEVER_PREFIXES,
    RUNTIME_VARS,
    TOOLCHAIN,
    TOOLCHAIN_PATTERN,
    WITHHELD_PREFIXES,
)
from aw_action.lazy_dataclass import dataclass
from aw_action.security.untrusted_text.secret_shapes import shaped_secrets

GITHUB_TOKEN_VARS = github_access_variables()
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
    """A name the tools never get unless granted GitHub access (its tokens only): the action's
    inputs, the Actions runtime, every credential."""
    upper = name.upper()
    return upper.startswith(WITHHELD_PREFIXES) or name in RUNTIME_VARS or is_credential_name(name)


def is_core(name: str) -> bool:
    """In the core set or exported by a toolchain setup step."""
    return name in CORE or name in TOOLCHAIN or name.startswith(CORE_PREFIXES) or bool(TOOLCHAIN_PATTERN.match(name))


NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def refused_grant(name: str) -> str | None:
    """Why the config may not grant ``name`` to the tools, or ``None`` when it may."""
    if not NAME.match(name):
        return "not a variable name"
    if name.upper().startswith(NEVER_PREFIXES) or name in HARNESS_OWN or name in RUNTIME_VARS:
        return "the harness's and the runner's own variables never reach the tools"
    if name in GITHUB_TOKEN_VARS:
        return "GitHub's token reaches the tools only through tools.github"
    if is_credential_name(name):
        return "a credential of the harness's (its name says so) never reaches the tools"
    return None


def _probes(secrets: Iterable[str]) -> list[str]:
    return [s for s in {s.strip() for s in secrets} if len(s) >= MIN_VALUE_MATCH]


def _holds_secret(value: str, probes: list[str]) -> bool:
    return any(p in value for p in probes) or bool(shaped_secrets(value))


def tool_environment(
    env: Mapping[str, str], *, github: GithubAccess, secrets: Iterable[str] = (), grant: Iterable[str] = ()
) -> dict[str, str]:
    """The tools' environment from ``env`` (see the module docstring): the core and toolchain
    variables whose values hold no secret (``secrets`` are the run's known secret values, the
    redactor's), the names ``grant`` names (each passed ``refused_grant`` when the config was
    read; checked again here) unless one holds a known secret, and GitHub's tokens when ``github`` is granted."""
    probes = _probes(secrets)
    granted = {name for name in grant if refused_grant(name) is None}

    def passes(name: str, value: str) -> bool:
        if name in GITHUB_TOKEN_VARS:
            return github.granted
        if name in granted:
            return not any(p in value for p in probes)
        return is_core(name) and not is_withheld_name(name) and not _holds_secret(value, probes)

    return {name: value for name, value in env.items() if passes(name, value)}


def credential_free(env: Mapping[str, str], *, secrets: Iterable[str] = ()) -> dict[str, str]:
    """``env`` without its credentials (by name, by a known secret value, by shape), for the
    harness's own children that are not the agent's tools, and the initial environment's wipe."""
    probes = _probes(secrets)
    return {k: v for k, v in env.items() if not is_withheld_name(k) and not _holds_secret(v, probes)}
