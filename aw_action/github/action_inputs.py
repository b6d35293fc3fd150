"""The action's inputs, read from the ``INPUT_*`` environment with pydantic-settings.

Runner facts this relies on (actions/runner ``Handler.AddInputsToEnvironment``): input
``max-turns`` arrives as ``INPUT_MAX-TURNS`` (upper-cased, hyphens kept), every declared input
is present (``""`` when it has no default), and ``required:`` is not enforced. So: names are
matched case-insensitively with hyphens, a blank value means "not set", and every check
happens here. A bad value raises ``ActionInputError`` naming the input as written in
action.yml.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Self
from urllib.parse import unquote

from pydantic import AliasChoices, Field, ValidationError, ValidationInfo, create_model, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from aw_action.ai.credentials import action_inputs
from aw_action.environment.runner import RUNTIME_CREDENTIALS
from aw_action.exits import InvocationError, Setting
from aw_action.github.trigger_guard import parse_roles
from aw_action.run.budget_kinds import BUDGET_KINDS, BudgetKind
from aw_action.run.redact import MIN_SECRET_LENGTH, header_values

SECRET_INPUTS = (*action_inputs().values(), "otlp-headers")
"""Inputs whose values are masked and never echoed: the credential table's key inputs and the
OTLP headers."""
INVALID_ARTIFACT_CHARS = set('":<>|*?\r\n\\/')
_TRUE = ("true", "True", "TRUE")
_FALSE = ("false", "False", "FALSE")


class ActionInputError(ValueError):
    """An input value the action cannot use; ``input`` is its action.yml name."""

    def __init__(self, input_name: str, message: str) -> None:
        super().__init__(f"Input '{input_name}': {message}")
        self.input = input_name
        self.message = message

    def invocation_error(self) -> InvocationError:
        """The same error as the harness's invocation errors, naming the input to correct."""
        return InvocationError(str(self), Setting(self.input, "input"))


def env_name(input_name: str) -> str:
    """The variable the runner sets for an input (``max-turns`` -> ``INPUT_MAX-TURNS``)."""
    return "INPUT_" + input_name.replace(" ", "_").upper()


def _input(name: str, default: Any = None, **constraints: Any) -> Any:
    return Field(default, validation_alias=AliasChoices(env_name(name).lower()), **constraints)


def split_list(value: str | None) -> list[str]:
    """A list input: one item a line, or comma-separated; blanks dropped."""
    if not value:
        return []
    return [item.strip() for item in re.split(r"[\n,]", value) if item.strip()]


def parse_headers(value: str | None) -> dict[str, str]:
    """OTLP headers as OpenTelemetry's env format: ``k1=v1,k2=v2`` (or one a line), values
    URL-decoded (``Authorization=Bearer%20xyz``)."""
    headers: dict[str, str] = {}
    for item in split_list(value):
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ActionInputError("otlp-headers", "expected key=value pairs separated by commas or new lines")
        headers[key.strip()] = unquote(raw.strip())
    return headers


class _Inputs(BaseSettings):
    """One field per action.yml input; ``None`` means the input was left empty. The budget
    inputs are added from the budget table (``ActionInputs`` below)."""

    model_config = SettingsConfigDict(
        case_sensitive=False,
        env_ignore_empty=True,
        extra="ignore",
        str_strip_whitespace=True,
        env_parse_none_str=None,
    )

    prompt: str | None = _input("prompt")
    prompt_file: str | None = _input("prompt-file")
    config: str | None = _input("config")
    model: str | None = _input("model")
    compaction: Literal["none", "sliding-window", "summarize"] | None = _input("compaction")
    extensions: str | None = _input("extensions")
    pass_env: str | None = _input("pass-env")
    imports: str | None = _input("imports")
    otlp_endpoint: str | None = _input("otlp-endpoint")
    otlp_headers: str | None = _input("otlp-headers")
    anthropic_api_key: str | None = _input("anthropic-api-key")
    openai_api_key: str | None = _input("openai-api-key")
    github_token: str | None = _input("github-token")
    output_dir: str | None = _input("output-dir")
    upload_artifacts: bool = _input("upload-artifacts", True)
    artifact_name: str | None = _input("artifact-name")
    output_schema: str | None = _input("output-schema")
    mcp_config: str | None = _input("mcp-config")
    mode: Literal["run", "apply", "replay", "report"] = _input("mode", "run")
    safe_outputs_path: str | None = _input("safe-outputs-path")
    dry_run: bool = _input("dry-run", False)
    replay_records: str | None = _input("replay-records")
    report_path: str | None = _input("report-path")
    continue_from: str | None = _input("continue-from")
    continue_from_run: str | None = _input("continue-from-run")
    continue_from_artifact: str | None = _input("continue-from-artifact")
    continue_from_untrusted: bool = _input("continue-from-untrusted", False)
    allowed_actor_roles: str | None = _input("allowed-actor-roles")
    allowed_bots: str | None = _input("allowed-bots")
    event_context: bool = _input("event-context", False)
    progress_comment: bool | None = _input("progress-comment")
    progress_comment_answer: bool | None = _input("progress-comment-answer")
    log_format: Literal["grouped", "file"] = _input("log-format", "grouped")
    sandbox: Literal["read-only", "workspace-write", "full"] | None = _input("sandbox")
    sandbox_network: bool | None = _input("sandbox-network")
    sandbox_required: bool | None = _input("sandbox-required")
    workflow: str | None = _input("workflow")
    workflow_checkpoint: str | None = _input("workflow-checkpoint")
    workflow_checkpoint_run: str | None = _input("workflow-checkpoint-run")
    workflow_decision: Literal["approve", "request-changes", "continue"] | None = _input("workflow-decision")
    workflow_feedback: str | None = _input("workflow-feedback")

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: Any, info: ValidationInfo) -> Any:
        blank = value is None or (isinstance(value, str) and not value.strip())
        return cls.model_fields[str(info.field_name)].default if blank else value

    @field_validator(
        "upload_artifacts",
        "dry_run",
        "event_context",
        "progress_comment",
        "progress_comment_answer",
        "sandbox_network",
        "sandbox_required",
        mode="before",
    )
    @classmethod
    def _strict_bool(cls, value: Any, info: ValidationInfo) -> Any:
        """The YAML 1.2 core-schema booleans, as @actions/core ``getBooleanInput`` accepts."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return cls.model_fields[str(info.field_name)].default
        if isinstance(value, bool):
            return value
        text = str(value).strip()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise ValueError("must be one of true, True, TRUE, false, False, FALSE")

    @field_validator("artifact_name")
    @classmethod
    def _artifact_name(cls, value: str | None) -> str | None:
        bad = sorted(INVALID_ARTIFACT_CHARS & set(value or ""))
        if bad:
            raise ValueError(f"contains characters artifact names may not hold: {' '.join(map(repr, bad))}")
        return value

    @field_validator("allowed_actor_roles")
    @classmethod
    def _roles(cls, value: str | None) -> str | None:
        parse_roles(value)  # raises ValueError naming the entry
        return value

    @classmethod
    def from_env(cls) -> Self:
        """Reads ``os.environ``; raises ``ActionInputError`` for the first invalid input."""
        try:
            return cls()
        except ValidationError as exc:
            raise _input_error(exc) from None

    def budget(self, kind: BudgetKind) -> float | None:
        """The value of ``kind``'s input, None when it was left empty."""
        value = getattr(self, budget_field(kind))
        return None if value is None else float(value)

    def credential(self, input_name: str) -> str | None:
        """The value of a credential input of the credential table (``anthropic-api-key``, ...)."""
        value: str | None = getattr(self, input_name.replace("-", "_"))
        return value


def budget_field(kind: BudgetKind) -> str:
    return kind.action_input.replace("-", "_")


def _budget_input(kind: BudgetKind) -> Any:
    """A positive, finite number (a whole one for counted kinds), or None when empty."""
    kind_type: Any = int | None if kind.integer else float | None
    return (kind_type, _input(kind.action_input, gt=0, allow_inf_nan=False))


if TYPE_CHECKING:
    ActionInputs = _Inputs
else:
    ActionInputs = create_model(
        "ActionInputs", __base__=_Inputs, **{budget_field(kind): _budget_input(kind) for kind in BUDGET_KINDS}
    )


_FIELD_TO_INPUT = {name: name.replace("_", "-") for name in ActionInputs.model_fields}


def _input_error(exc: ValidationError) -> ActionInputError:
    first = exc.errors()[0]
    loc = str(first["loc"][0]) if first["loc"] else ""
    name = loc.removeprefix("input_") if loc.startswith("input_") else _FIELD_TO_INPUT.get(loc, loc)
    message = str(first["msg"]).removeprefix("Value error, ")
    if message.startswith("Input should"):  # pydantic's subject is the input: name it once
        message = message.removeprefix("Input ")
    got = first.get("input")
    if isinstance(got, str) and name not in SECRET_INPUTS:
        message += f" (got {got!r})"
    return ActionInputError(name, message)


def raw_input(env: Mapping[str, str], name: str) -> str:
    """An input's value as the runner passed it, unchecked (for reporting a run whose inputs
    could not be read: where its records go, whether to upload them)."""
    return (env.get(env_name(name)) or "").strip()


def secret_values(env: dict[str, str]) -> list[str]:
    """Every secret the raw environment holds for this action, read without validation so it
    can be masked before anything (even an input error) is printed: the secret inputs, the
    values inside ``otlp-headers`` (and their part after ``Bearer ``), the runtime and OIDC
    request tokens. A multi-line value is returned whole; the masker and the redactor register
    each of its lines. (Secrets on the step's ``env:`` are the runner's to mask; the log's
    redactor learns them from the run's environment.)"""
    found: list[str] = []
    for name in SECRET_INPUTS:
        value = (env.get(env_name(name)) or "").strip()
        if not value:
            continue
        found.append(value)
        if name == "otlp-headers":
            for item in split_list(value):
                found.extend(v for v in header_values(item) if len(v.strip()) >= MIN_SECRET_LENGTH)
    found += [env.get(name, "") for name in RUNTIME_CREDENTIALS]
    return [v for v in dict.fromkeys(found) if v.strip()]
