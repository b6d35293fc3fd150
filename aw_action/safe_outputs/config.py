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
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, StrictInt, TypeAdapter, ValidationError

from aw_action.config.document import ConfigError, read_document
from aw_action.lazy_dataclass import dataclass
from aw_action.run import record_table
from aw_action.safe_outputs.kinds import BY_TYPE, KINDS
from aw_action.safe_outputs.kinds.base import KindConfig
from aw_action.security.records.record_guard import RecordWrites, write_record

CONFIG_FILE = record_table.SAFE_OUTPUTS_CONFIG.name
MAX_PATCH_SIZE_KEY = "max-patch-size"
_MAX_PATCH_SIZE = TypeAdapter(Annotated[StrictInt, Field(ge=1, le=10_240)])


class SafeOutputsConfigError(ValueError):
    """Invalid ``safe-outputs`` config; the message starts with the field path."""


@dataclass(frozen=True)
class SafeOutputsConfig:
    """The enabled kinds' configs (record type -> config, in ``KINDS`` order) and the settings
    that belong to no one kind."""

    kinds: Mapping[str, KindConfig] = field(default_factory=dict)
    max_patch_size: int = 1024
    """Largest pull-request patch, in KiB (gh-aw's key and default)."""

    def enabled(self) -> list[str]:
        """Configured record types, in the order tools are offered."""
        return list(self.kinds)

    def kind(self, record_type: str) -> KindConfig | None:
        return self.kinds.get(record_type)

    def to_json(self) -> dict[str, Any]:
        """The file form: ``{"safe-outputs": {...}}``, the same shape as a config.json."""
        body = {
            BY_TYPE[name].key: cfg.model_dump(mode="json", by_alias=True, exclude_none=True)
            for name, cfg in self.kinds.items()
        }
        return {"safe-outputs": {**body, MAX_PATCH_SIZE_KEY: self.max_patch_size}}


def _location(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def _error(where: str, exc: ValidationError) -> SafeOutputsConfigError:
    first = exc.errors()[0]
    message = str(first["msg"]).removeprefix("Value error, ").removeprefix(": ")
    separator = "" if message.startswith("[") else ": "
    return SafeOutputsConfigError(f"{where}{_location(tuple(first['loc']))}{separator}{message}")


def parse_safe_outputs(raw: Any) -> SafeOutputsConfig:
    """The typed config from the raw ``safe-outputs`` value (``None`` = nothing configured). A kind
    set to ``null``/``true``/``{}`` is enabled with its defaults, ``false`` (or absent) disables it."""
    if raw is None:
        return SafeOutputsConfig()
    if not isinstance(raw, Mapping):
        raise SafeOutputsConfigError("safe-outputs: must be a mapping")
    supported = [kind.key for kind in KINDS] + [MAX_PATCH_SIZE_KEY]
    unknown = [k for k in raw if k not in supported]
    if unknown:
        raise SafeOutputsConfigError(
            f"safe-outputs.{unknown[0]}: not supported by aw-harness (supported: {', '.join(supported)})"
        )
    kinds: dict[str, KindConfig] = {}
    for kind in KINDS:
        value = raw.get(kind.key, False)
        if value is False:
            continue
        try:
            kinds[kind.name] = kind.config_model.model_validate({} if value is None or value is True else value)
        except ValidationError as exc:
            raise _error(f"safe-outputs.{kind.key}", exc) from None
    try:
        max_patch_size = _MAX_PATCH_SIZE.validate_python(raw.get(MAX_PATCH_SIZE_KEY, 1024))
    except ValidationError as exc:
        raise _error(f"safe-outputs.{MAX_PATCH_SIZE_KEY}", exc) from None
    return SafeOutputsConfig(kinds, max_patch_size)


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


def write_config_file(output_dir: Path, config: SafeOutputsConfig, records: RecordWrites | None = None) -> Path:
    """Write ``CONFIG_FILE`` atomically (a reader never sees half a file), mode 0644 (the
    artifact upload and later steps read it); with the run's ``records``, in its held output dir."""
    target = output_dir / CONFIG_FILE
    text = json.dumps(config.to_json(), indent=2) + "\n"
    write_record(target, text.encode("utf-8"), records)
    return target
