"""``safe-outputs:`` as typed config, parsed from the mapping ``RunConfig.safe_outputs`` holds.

Keys are gh-aw's (``pkg/parser/schemas/main_workflow_schema.json``), kebab-case; the subset
aw-harness applies itself is below. A kind set to ``null``/``true``/``{}`` is enabled with its
defaults, ``false`` (or absent) disables it. Anything else aw-harness does not apply is an error
naming the field: silently ignoring ``target-repo`` or ``github-token`` would act somewhere the
author did not mean. ``max`` is a positive integer up to 100 (gh-aw's ``-1`` = unlimited is
refused); the spec's example spelling ``max-count`` is accepted as an alias.

The config also travels beside the records (``CONFIG_FILE`` in the output dir), so the apply
job needs nothing but the artifact; that copy is only as trustworthy as the agent that could
write to the folder, so the apply job should pass the repository's own config with ``--config``.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from aw_action.config.document import ConfigError, read_document
from aw_action.safe_outputs import fields

CONFIG_FILE = "safe-outputs.config.json"
KINDS: dict[str, str] = {
    "create_issue": "create-issue",
    "add_comment": "add-comment",
    "create_pull_request": "create-pull-request",
    "add_labels": "add-labels",
    "noop": "noop",
}
"""Record type (gh-aw's snake_case ``type``) -> config key, in the order tools are offered."""
MAX_LIMIT = 100
TITLE_PREFIX_MAX_CHARS = 64

Target = Literal["triggering", "*"] | int


class SafeOutputsConfigError(ValueError):
    """Invalid ``safe-outputs`` config; the message starts with the field path."""


def _kebab(name: str) -> str:
    return name.replace("_", "-")


def _max_field(default: int) -> Any:
    return Field(default=default, ge=1, le=MAX_LIMIT, validation_alias=AliasChoices("max", "max-count"))


class _Kind(BaseModel):
    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid", frozen=True)


def _check_labels(value: tuple[str, ...] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    return tuple(fields.labels(list(value), ""))  # the error's location comes from pydantic


def _check_target(value: Any) -> Any:
    if value in ("triggering", "*"):
        return value
    try:
        return fields.item_number(value, "target")
    except fields.FieldError:
        raise ValueError("must be 'triggering', '*' or an issue/pull request number") from None


class _Titled(_Kind):
    title_prefix: StrictStr = ""
    labels: tuple[StrictStr, ...] = ()
    """Added to every item created, as gh-aw does."""
    allowed_labels: tuple[StrictStr, ...] | None = None
    """Labels the agent may add itself; absent = any label."""

    @field_validator("title_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if value.strip():  # keep the trailing space: "[bot] " reads differently from "[bot]"
            fields.text(value, "", max_chars=TITLE_PREFIX_MAX_CHARS, single_line=True)
        return value

    @field_validator("labels", "allowed_labels")
    @classmethod
    def _labels(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return _check_labels(value)


class CreateIssue(_Titled):
    max: StrictInt = _max_field(1)


class CreatePullRequest(_Titled):
    draft: StrictBool = True
    max: StrictInt = _max_field(1)


class _Targeted(_Kind):
    target: Target = "triggering"
    """``triggering`` (the event's issue or pull request), ``*`` (the agent names it) or a number."""

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, value: Any) -> Any:
        return _check_target(value)


class AddComment(_Targeted):
    max: StrictInt = _max_field(1)


class AddLabels(_Targeted):
    allowed: tuple[StrictStr, ...] | None = None
    """The labels the agent may add; absent = any label."""
    max: StrictInt = _max_field(3)

    @field_validator("allowed")
    @classmethod
    def _allowed(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return _check_labels(value)


class Noop(_Kind):
    max: StrictInt = _max_field(1)


KindConfig = CreateIssue | AddComment | CreatePullRequest | AddLabels | Noop


class SafeOutputsConfig(BaseModel):
    model_config = ConfigDict(alias_generator=_kebab, populate_by_name=True, extra="forbid", frozen=True)

    create_issue: CreateIssue | None = None
    add_comment: AddComment | None = None
    create_pull_request: CreatePullRequest | None = None
    add_labels: AddLabels | None = None
    noop: Noop | None = None
    max_patch_size: StrictInt = Field(default=1024, ge=1, le=10_240)
    """Largest create-pull-request patch, in KiB (gh-aw's key and default)."""

    @model_validator(mode="before")
    @classmethod
    def _switches(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            raise ValueError("must be a mapping")
        out = dict(data)
        for key in KINDS.values():
            if key in out:
                if out[key] is None or out[key] is True:
                    out[key] = {}
                elif out[key] is False:
                    del out[key]
        return out

    def enabled(self) -> list[str]:
        """Configured record types, in the order tools are offered."""
        return [kind for kind in KINDS if getattr(self, kind) is not None]

    def kind(self, record_type: str) -> KindConfig | None:
        value = getattr(self, record_type, None) if record_type in KINDS else None
        return value if isinstance(value, CreateIssue | AddComment | CreatePullRequest | AddLabels | Noop) else None

    def to_json(self) -> dict[str, Any]:
        """The file form: ``{"safe-outputs": {...}}``, the same shape as a config.json."""
        return {"safe-outputs": self.model_dump(mode="json", by_alias=True, exclude_none=True)}


def _location(loc: tuple[int | str, ...]) -> str:
    out = "safe-outputs"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def parse_safe_outputs(raw: Any) -> SafeOutputsConfig:
    """The typed config from the raw ``safe-outputs`` value (``None`` = nothing configured)."""
    if raw is None:
        return SafeOutputsConfig()
    if isinstance(raw, Mapping):
        unknown = [k for k in raw if k not in (*KINDS.values(), "max-patch-size")]
        if unknown:
            supported = ", ".join([*KINDS.values(), "max-patch-size"])
            raise SafeOutputsConfigError(
                f"safe-outputs.{unknown[0]}: not supported by aw-harness (supported: {supported})"
            )
    try:
        return SafeOutputsConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ").removeprefix(": ")
        separator = "" if message.startswith("[") else ": "
        raise SafeOutputsConfigError(f"{_location(tuple(first['loc']))}{separator}{message}") from None


def load_config_file(path: Path) -> SafeOutputsConfig:
    """A JSON file holding ``{"safe-outputs": ...}``: the copy beside the records, or a config.json
    (whose other keys are ignored). Errors name the file."""
    try:
        data = read_document(Path(path), str(path))  # the config layer's reader: bounded, regular files only
    except ConfigError as exc:
        raise SafeOutputsConfigError(f"{path}: cannot read a JSON config: {exc.reason}") from None
    try:
        return parse_safe_outputs(data.get("safe-outputs"))
    except SafeOutputsConfigError as exc:
        raise SafeOutputsConfigError(f"{path}: {exc}") from None


def write_config_file(output_dir: Path, config: SafeOutputsConfig) -> Path:
    """Write ``CONFIG_FILE`` atomically (a reader never sees half a file)."""
    output_dir.mkdir(parents=True, exist_ok=True)
    target = output_dir / CONFIG_FILE
    fd, tmp = tempfile.mkstemp(dir=output_dir, prefix=".safe-outputs-config.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(config.to_json(), handle, indent=2)
        handle.write("\n")
    os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the artifact upload and later steps read it
    os.replace(tmp, target)
    return target
