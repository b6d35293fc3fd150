"""config.json as typed models (keys spelled as in spec §6.1, kebab-case).

Unknown top-level keys are ignored (the compiler passes frontmatter such as ``on:``); inside
``harness`` every key must be known, so a typo cannot silently disable a budget. These models
are plain data shared by every layer; loading files and reporting errors lives in ``inputs.py``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from aw_action.mcp.config import McpServer
from aw_action.security.confinement.tool_env import github_access, refused_grant


def _kebab(name: str) -> str:
    return name.replace("_", "-")


class _Open(BaseModel):
    """Extra keys ignored (frontmatter the harness does not use)."""

    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="ignore", allow_inf_nan=False)


class _Strict(BaseModel):
    """Extra keys are errors (harness settings: a typo must not pass silently)."""

    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid", allow_inf_nan=False)


class Engine(_Open):
    id: str = "aw"
    model: str = Field(min_length=1)


class ImportEntry(_Open):
    """A compiler-resolved import: its repository path and, usually, its content."""

    path: str = Field(min_length=1)
    content: str | None = None


class GithubTools(_Open):
    mode: str = "gh-proxy"
    toolsets: list[str] = Field(default_factory=list)


class Tools(_Open):
    github: GithubTools = Field(default_factory=GithubTools)
    bash: list[str] | bool | None = None
    """Allowed commands, or true/false: the bash policy (``extensions/bash_policy.py``)."""
    bash_variables: list[str] = Field(default_factory=list)
    """Variables a restricted command may use as ``"$NAME"`` (never credentials)."""
    pass_env: list[str] = Field(default_factory=list)
    """Variables the tools get beyond the core set (``security/confinement/tool_env.py``); never the
    harness's, the runner's or a credential (``refused_grant``)."""

    @field_validator("pass_env")
    @classmethod
    def _grantable(cls, names: list[str]) -> list[str]:
        for name in names:
            why = refused_grant(name)
            if why is not None:
                raise ValueError(f"{name!r}: {why}")
        return list(dict.fromkeys(names))


class Otlp(_Open):
    endpoint: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


class Observability(_Open):
    otlp: Otlp = Field(default_factory=Otlp)


class Budget(_Strict):
    """One field per budget kind of ``run/budget_kinds.py`` (its ``config_path``)."""

    max_effective_tokens: float | None = Field(default=None, gt=0)
    max_ai_credits: float | None = Field(default=None, gt=0)
    max_turns: int | None = Field(default=None, gt=0)
    max_tool_calls: int | None = Field(default=None, gt=0)


class ContextSettings(_Strict):
    compaction: Literal["none", "sliding-window", "summarize"] = "none"
    compaction_threshold: float = Field(default=0.75, gt=0, le=1)


class Steering(_Strict):
    time_warning_minutes: float = Field(default=5, ge=0)
    time_critical_minutes: float = Field(default=2, ge=0)
    budget_warn_percent: float = Field(default=75, gt=0, le=100)
    budget_critical_percent: float = Field(default=90, gt=0, le=100)


class HarnessSettings(_Strict):
    budget: Budget = Field(default_factory=Budget)
    context: ContextSettings = Field(default_factory=ContextSettings)
    steering: Steering = Field(default_factory=Steering)
    extensions: list[str] = Field(default_factory=list)
    extensions_required: bool = False
    faux_script: str | None = None
    """Script file for the scripted provider (``faux/...`` models), relative to config.json."""
    system_prompt: str | None = None
    """Replaces the harness's short built-in system prompt."""
    output_schema: dict[str, Any] | str | None = None
    """A JSON Schema the final answer must match: inline, or a file relative to config.json
    (checked when the run is assembled: ``harness/output_schema.py``)."""
    progress_comment: bool = False
    """Keep one comment on the triggering issue or PR up to date (``extensions/progress_comment.py``)."""
    progress_comment_answer: bool = False
    """The finished progress comment also shows the answer, sanitised (``sinks/progress.py``)."""
    sandbox: Literal["read-only", "workspace-write", "full"] | None = None
    """The kernel sandbox of the agent's commands and file tools (``security/confinement/sandbox.py``);
    unset: the mode each bash policy implies."""
    sandbox_network: bool | None = None
    """TCP in a ``workspace-write`` sandbox (unset: off when ``sandbox`` names it, on when a
    bash policy implies it); never in ``read-only``."""
    sandbox_required: bool = True
    """False: a read-only sandbox the kernel cannot enforce runs unenforced, with a warning,
    instead of failing the invocation."""
    process_budget: int = Field(default=512, ge=8, le=1_000_000)
    """How many tasks (processes and threads) the agent's commands may add to those the tools'
    user has at the start (``RLIMIT_NPROC``, ``security/confinement/containment.py``); past it a fork fails
    with EAGAIN."""

    @field_validator("extensions")
    @classmethod
    def _no_empty_refs(cls, refs: list[str]) -> list[str]:
        if any(not r.strip() for r in refs):
            raise ValueError("extension references must be non-empty strings")
        return refs


MAX_TIMEOUT_MINUTES = 50_400
"""35 days, the longest a GitHub Actions workflow run may last: a longer ``timeout-minutes`` is a
mistake (``1e308``), refused naming it (exit 2)."""


class RunConfig(_Open):
    engine: Engine
    timeout_minutes: float = Field(default=20, gt=0, le=MAX_TIMEOUT_MINUTES)
    imports: list[ImportEntry | str] = Field(default_factory=list)
    cli_proxy: bool = True
    tools: Tools = Field(default_factory=Tools)
    safe_outputs: dict[str, Any] = Field(default_factory=dict)
    """Typed and checked by the safe-outputs extension (``safe_outputs/config.py``) when the run
    is assembled, before any model request; ignored in gh-aw mode, where gh-aw applies it."""
    observability: Observability = Field(default_factory=Observability)
    harness: HarnessSettings = Field(default_factory=HarnessSettings)
    mcp_servers: dict[str, McpServer] = Field(default_factory=dict)
    """The MCP servers whose tools the agent gets (``aw_action/mcp/config.py``, docs/mcp.md);
    with the action's ``mcp-config`` document merged in by ``config/resolve.py``."""

    def github_granted(self) -> bool:
        """Whether ``tools.github`` as the config wrote it grants GitHub access (absent: no;
        the rule is ``tool_env.github_access``'s, as ``harness/guards.github_grant`` applies it)."""
        written = self.tools.github.model_dump(by_alias=True) if "github" in self.tools.model_fields_set else None
        return github_access(written).granted
