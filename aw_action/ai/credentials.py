"""The credential table: every environment variable that holds a model credential, in one place.

``models.json``'s ``credentials`` has one row per variable, in lookup order: the providers it
serves, whether it is sent as ``Authorization: Bearer`` (the anthropic SDK's ``auth_token``)
rather than as the SDK's API key, the variables that go with it (``requires``: without them the
row is not a credential; ``with``: read when present: AWS's secret key and session token go with
its access key id), whether it names a file that holds the credential (``file``: Google's
``GOOGLE_APPLICATION_CREDENTIALS``) or an identity the job's OIDC token is exchanged for a token of
(``oidc``: Azure's ``AZURE_CLIENT_ID``, ``ai/entra.py``), the action input that sets it (action.yml), the placeholder
AWF's api-proxy puts there instead of a real key (gh-aw-firewall
``src/services/credentials/*-credential-env.ts``, ``src/constants/placeholders.ts``; no secret),
and whether it is the GitHub token the agent's ``gh`` and ``git`` get when the config grants
GitHub access (``github_access``). Rows that serve no provider are other engines' keys (and the
gh CLI's token), kept from the agent all the same.

Everything that needs a credential fact reads it here: provider setup (``find_credential``), the
missing-credential message (``missing_credentials``) and the action's wording of it
(``github/credential_help.py``), the action's key inputs and their masks
(``github/action_inputs.py``, ``github/plan.py``), the agent's environment
(``security/confinement/tool_env.py``: ``is_credential_name``, ``github_access_variables``), the credentials
files kept from the tools during a run (``harness/guards.py``: ``credential_files``) and the redactor
(``run/redact.py``: ``is_credential_name``, ``is_awf_placeholder``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field
from functools import cache

from aw_action.ai.catalog import catalog_data, provider_specs
from aw_action.ai.types import Model
from aw_action.exits import MissingCredentialsError
from aw_action.lazy_dataclass import dataclass

CREDENTIAL_NAME = re.compile(
    r"(API_?KEY|TOKEN(?!S)|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|AUTHORIZATION|OTLP.*HEADERS)",
    re.IGNORECASE,
)
"""A name that says it holds a credential: ``TOKEN`` but not ``TOKENS`` (``MAX_TOKENS=100000`` is
a setting, not a credential)."""


@dataclass(frozen=True)
class CredentialVar:
    """One row of the table."""

    name: str
    providers: tuple[str, ...] = ()
    bearer: bool = False
    action_input: str | None = None
    awf_placeholder: str | None = None
    github_access: bool = False
    requires: tuple[str, ...] = ()
    with_: tuple[str, ...] = ()
    file: bool = False
    oidc: bool = False


@dataclass(frozen=True)
class Credential:
    """A credential value found in the environment and how to send it."""

    value: str
    var: str
    bearer: bool = False
    parts: Mapping[str, str] = field(default_factory=dict)
    """The variables that go with it (``requires`` and ``with``) that are present, by name."""
    file: bool = False
    """``value`` names a file that holds the credential."""
    oidc: bool = False
    """``value`` names an identity the job's OIDC token is exchanged for a token of (workload
    identity federation); the exchange's inputs are in ``parts``."""

    @property
    def secrets(self) -> list[str]:
        """The values the redactor must know: the credential and the parts whose names say they
        hold one (a file's path is no secret: what it holds is the transport's to reveal; a
        tenant id is none either)."""
        parts = [v for k, v in self.parts.items() if is_credential_name(k)]
        return [v for v in ([] if self.file else [self.value]) + parts if v]

    @property
    def placeholder(self) -> bool:
        """An AWF placeholder: the proxy holds the real key; the value is no secret."""
        return is_awf_placeholder(self.value)


@cache
def credential_table() -> tuple[CredentialVar, ...]:
    return tuple(
        CredentialVar(
            name=name,
            providers=tuple(row.get("providers", ())),
            bearer=bool(row.get("bearer", False)),
            action_input=row.get("action_input"),
            awf_placeholder=row.get("awf_placeholder"),
            github_access=bool(row.get("github_access", False)),
            requires=tuple(row.get("requires", ())),
            with_=tuple(row.get("with", ())),
            file=bool(row.get("file", False)),
            oidc=bool(row.get("oidc", False)),
        )
        for name, row in catalog_data()["credentials"].items()
    )


def provider_variables(provider: str) -> tuple[str, ...]:
    """The variables that hold ``provider``'s credential, first present wins."""
    return tuple(row.name for row in credential_table() if provider in row.providers)


def find_credential(provider: str, env: Mapping[str, str]) -> Credential | None:
    """The first complete credential of ``provider`` in ``env``: a row whose variable and every
    ``requires`` variable are set."""
    for row in credential_table():
        if provider not in row.providers or not env.get(row.name, "").strip():
            continue
        if any(not env.get(name, "").strip() for name in row.requires):
            continue
        parts = {name: env[name].strip() for name in (*row.requires, *row.with_) if env.get(name, "").strip()}
        return Credential(env[row.name].strip(), row.name, row.bearer, parts, row.file, row.oidc)
    return None


def _described(row: CredentialVar) -> str:
    """A row as the missing-credential message names it (``AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY``)."""
    return f"{row.name} with {' and '.join(row.requires)}" if row.requires else row.name


def credential_files(env: Mapping[str, str]) -> list[str]:
    """The paths of the credentials files ``env`` names (the table's ``file`` rows that are set)."""
    return list(credential_file_variables(env).values())


def credential_file_variables(env: Mapping[str, str]) -> dict[str, str]:
    """Variable -> the path of the credentials file it names (the table's ``file`` rows that are set)."""
    return {row.name: env[row.name].strip() for row in credential_table() if row.file and env.get(row.name, "").strip()}


def withheld_variables() -> frozenset[str]:
    """The credential variables the agent's shell never sees, whatever the config grants."""
    return frozenset(row.name for row in credential_table() if not row.github_access)


def github_access_variables() -> frozenset[str]:
    """The GitHub token variables the agent's shell keeps when the config grants GitHub access."""
    return frozenset(row.name for row in credential_table() if row.github_access)


def action_inputs() -> dict[str, str]:
    """Credential variable -> the action input that sets it."""
    return {row.name: row.action_input for row in credential_table() if row.action_input}


def is_awf_placeholder(value: str) -> bool:
    """True for the exact credential values AWF's api-proxy hands the agent instead of real keys."""
    return value.strip() in _placeholders()


@cache
def _placeholders() -> frozenset[str]:
    return frozenset(row.awf_placeholder for row in credential_table() if row.awf_placeholder)


@cache
def _names() -> frozenset[str]:
    return frozenset(row.name for row in credential_table())


def is_credential_name(name: str) -> bool:
    """A variable that holds a credential: a row of the table, or a name that says so
    (``INPUT_OPENAI-API-KEY``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``MY_SECRET``)."""
    return name in _names() or bool(CREDENTIAL_NAME.search(name.replace("-", "_")))


def missing_credentials(model: Model, registered: list[str]) -> MissingCredentialsError:
    """The invocation error when no registered provider can serve ``model``: one line naming the
    variables looked in (``MissingCredentialsError.variables``, which entry points reword)."""
    rows = credential_table()
    hints = {name: " or ".join(_described(r) for r in rows if name in r.providers) for name in provider_specs()}
    looked_for = ", ".join(dict.fromkeys(hint for hint in hints.values() if hint))
    need = hints.get(model.provider) or f"credentials for provider {model.provider!r}"
    spec = provider_specs().get(model.provider)
    fix = f"; {spec.credential_fix}" if spec and spec.credential_fix else ""
    have = ", ".join(p for p in registered if p != "faux") or "none"
    message = f"no credentials for model {model.ref}: set {need}{fix} (looked for {looked_for}; providers "
    message += f"registered: {have})"
    return MissingCredentialsError(message, model.ref, provider_variables(model.provider))
