"""The ``mcp-servers`` config (gh-aw's frontmatter spelling) and the Claude-style ``mcp-config``.

A server is a stdio process (``command``, ``args``, ``cwd``, ``env``, ``env-vars``) or a
streamable HTTP endpoint (``url``, ``headers``, ``bearer-token-env-var``). A secret reaches a
server only by a variable's name: ``env-vars`` passes variables of the harness's environment
through, ``${NAME}`` in an ``env`` or ``headers`` value is replaced by the variable's value when
the server starts, and ``bearer-token-env-var`` names the variable holding an HTTP bearer token.
A literal value shaped like a secret is refused, so no secret is ever written in a config (or a
record of it). ``grant_problem`` is the one rule of which variables a server may be given:
never the harness's own (its model keys and every row of the credential table, ``ACTIONS_*``,
``INPUT_*``, ``AW_*``), and GitHub's token only when ``tools.github`` grants GitHub access.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from aw_action.ai.credentials import credential_table
from aw_action.environment.runner import RUNTIME_VARS
from aw_action.environment.tool_env_table import HARNESS_OWN, NEVER_PREFIXES
from aw_action.security.confinement.tool_env import GITHUB_TOKEN_VARS
from aw_action.security.untrusted_text.secret_shapes import shaped_secrets

DEFAULT_STARTUP_TIMEOUT_S = 30.0
"""How long a server may take to start and answer ``initialize`` and ``tools/list``: long enough
for a first ``npx``/``uvx`` download or a cold container (the most common MCP complaint)."""
DEFAULT_TOOL_TIMEOUT_S = 60.0
"""How long one tool call may take before it ends as a tool error."""
DEFAULT_MAX_TOOLS = 64
"""Tools taken from one server at most (the first ones it lists); more are left out with a warning."""
MAX_SCHEMA_BYTES = 64 * 1024
"""The JSON of one server's tool descriptions and schemas, at most; tools past it are left out."""
SERVER_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,30}[A-Za-z0-9])?$")
"""1 to 32 characters, starting and ending with a letter or digit (and no ``__``: ``check_servers``),
so the server of an ``mcp__<server>__<tool>`` name is never ambiguous."""
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
CONFIG_KEY = "mcp-servers"
INPUT = "mcp-config"


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def grant_problem(name: str, *, github: bool) -> str | None:
    """Why a server may not be given variable ``name``, or ``None`` when it may."""
    if not NAME.match(name):
        return "not a variable name"
    if name.upper().startswith(NEVER_PREFIXES) or name in HARNESS_OWN or name in RUNTIME_VARS:
        return "the harness's and the runner's own variables never reach an MCP server"
    if name in GITHUB_TOKEN_VARS:
        return None if github else "GitHub's token reaches a server only when tools.github grants GitHub access"
    if name in {row.name for row in credential_table()}:
        return "a credential of the harness's (a model key) never reaches an MCP server"
    return None


class McpServer(BaseModel):
    """One server of ``mcp-servers`` (docs/mcp.md, "Configuration")."""

    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid", allow_inf_nan=False)

    type: Literal["stdio", "local", "http", "streamable-http"] | None = None
    command: str | None = Field(default=None, min_length=1)
    args: list[str] = Field(default_factory=list)
    cwd: str | None = None
    """Relative to the workspace; default the workspace."""
    env: dict[str, str] = Field(default_factory=dict)
    env_vars: list[str] = Field(default_factory=list)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    bearer_token_env_var: str | None = None
    allowed: list[str] | None = None
    """Tool names the agent gets (``*``: all); unset: all."""
    blocked: list[str] = Field(default_factory=list)
    startup_timeout: float = Field(default=DEFAULT_STARTUP_TIMEOUT_S, gt=0, le=600)
    tool_timeout: float = Field(default=DEFAULT_TOOL_TIMEOUT_S, gt=0, le=3600)
    required: bool = False
    max_tools: int = Field(default=DEFAULT_MAX_TOOLS, ge=1, le=1000)

    @model_validator(mode="before")
    @classmethod
    def _transport(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            kind = data.get("type")
            if kind in ("sse", "http+sse"):
                raise ValueError(
                    "type: the legacy HTTP+SSE transport is not supported; use the server's streamable HTTP "
                    "endpoint (type: http) or run it over stdio"
                )
            if "container" in data:
                raise ValueError("container: the image has no Docker; run the server as a job service over HTTP")
        return data

    @model_validator(mode="after")
    def _shape(self) -> McpServer:
        http = self.type in ("http", "streamable-http") or (self.type is None and self.url is not None)
        if http:
            if not self.url:
                raise ValueError("url: required for an HTTP server")
            if not re.match(r"^https?://", self.url):
                raise ValueError("url: must start with http:// or https://")
            if self.command is not None or self.args or self.env or self.env_vars or self.cwd:
                raise ValueError("command: an HTTP server (url) takes no command, args, cwd, env or env-vars")
        else:
            if not self.command:
                raise ValueError("command: required for a stdio server (or give url for an HTTP one)")
            if self.url or self.headers or self.bearer_token_env_var:
                raise ValueError("url: a stdio server (command) takes no url, headers or bearer-token-env-var")
        for key, values in (("env", self.env), ("headers", self.headers)):
            for name, value in values.items():
                if shaped_secrets(value):
                    raise ValueError(
                        f"{key}.{name}: holds a secret; pass it by name (${{NAME}} or env-vars), never in a config"
                    )
        if self.url and shaped_secrets(self.url):
            raise ValueError("url: holds a secret; pass it by name (bearer-token-env-var or ${NAME} in headers)")
        for name in self.env_vars:
            if not NAME.match(name):
                raise ValueError(f"env-vars: {name!r} is not a variable name")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command else "http"

    def variables(self) -> list[str]:
        """Every variable of the harness's environment this server is given."""
        named = [*self.env_vars]
        for value in [*self.env.values(), *self.headers.values()]:
            named += VARIABLE.findall(value)
        if self.bearer_token_env_var:
            named.append(self.bearer_token_env_var)
        return list(dict.fromkeys(named))

    def granted(self) -> list[str]:
        """The names its process may hold even where they read like a credential: every variable
        it is given and every name its ``env`` sets (``SERVICE_API_TOKEN: ${MY_SVC}``): the
        backstop of ``security/confinement/spawn.child_env`` drops any other such name."""
        return list(dict.fromkeys([*self.variables(), *self.env]))

    def takes(self, tool: str) -> bool:
        """Whether ``allowed`` and ``blocked`` let the agent have ``tool``."""
        if tool in self.blocked:
            return False
        return self.allowed is None or "*" in self.allowed or tool in self.allowed


def check_servers(servers: Mapping[str, McpServer], *, github: bool) -> str | None:
    """The first problem with the servers as a whole, as ``name.key: message`` (the variables a
    server is given: ``grant_problem``)."""
    for name, server in servers.items():
        if not SERVER_NAME.match(name) or "__" in name:
            return f"{name}: a server name is 1 to 32 letters, digits, '-' or '_' (alphanumeric ends, no '__')"
        for variable in server.variables():
            why = grant_problem(variable, github=github)
            if why is not None:
                return f"{name}.env-vars: {variable}: {why}"
        for key in server.env:
            why = grant_problem(key, github=github)
            if why is not None:
                return f"{name}.env: {key}: {why}"
    return None


def resolve_values(values: Mapping[str, str], env: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """``values`` with each ``${NAME}`` replaced from ``env``; and the names that were unset."""
    missing: list[str] = []

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            missing.append(name)
        return env.get(name, "")

    return {k: VARIABLE.sub(one, v) for k, v in values.items()}, missing


CLAUDE_KEYS = {"command", "args", "env", "cwd", "type", "url", "headers"}


def from_claude(document: Any, where: str) -> dict[str, dict[str, Any]]:
    """The Claude-style document (``{"mcpServers": {name: {command, args, env} | {type, url,
    headers}}}``, as Claude Code's ``--mcp-config``, Gemini CLI and gh-aw's gateway read it) as
    ``mcp-servers`` entries; ``ValueError`` naming the server and key. Keys of our own
    (``allowed``, ``env-vars``, ``required``, the timeouts) are taken as they are."""
    if not isinstance(document, Mapping) or not isinstance(document.get("mcpServers"), Mapping):
        raise ValueError(f'{where}: expected a JSON object {{"mcpServers": {{...}}}}')
    out: dict[str, dict[str, Any]] = {}
    for name, spec in document["mcpServers"].items():
        if not isinstance(spec, Mapping):
            raise ValueError(f"{where}: mcpServers.{name}: expected an object")
        entry = dict(spec)
        if entry.pop("disabled", False):
            continue
        for key in ("timeout", "trust", "description", "alwaysAllow", "autoApprove", "includeTools", "excludeTools"):
            value = entry.pop(key, None)
            if key == "includeTools" and value is not None:
                entry["allowed"] = value
            if key == "excludeTools" and value is not None:
                entry["blocked"] = value
        out[str(name)] = entry
    return out
