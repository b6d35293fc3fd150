"""What the kinds that only report share (a missing tool, missing data; ``NotedKind``, a kind's
module gives its fields and its tool's words): short text fields,
recorded and shown (the run's step summary, ``apply --dry-run``, the apply job's report and step
summary), nothing written to GitHub. gh-aw's limits: 128 characters for the name, 256 for the
reason and context, 512 for alternatives (``safe_output_validation_config.go``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import KindConfig, SafeOutputKind, Settings, max_field

Fields = Mapping[str, tuple[int, str]]
"""field -> (its limit in characters, what the agent writes there)."""


def schema(spec: Fields, required: list[str]) -> dict[str, Any]:
    properties = {name: common.string(about, limit) for name, (limit, about) in spec.items()}
    return common.object_schema(properties, required)


def validate(args: Mapping[str, Any], spec: Fields, required: list[str]) -> dict[str, Any]:
    record = {}
    for name, (limit, _) in spec.items():
        if args.get(name) is None and name not in required:
            continue
        record[name] = fields.text(args.get(name), name, max_chars=limit, single_line=False)
    if not record:
        raise fields.FieldError(f"give at least one of: {', '.join(spec)}")
    return record


def message(record: Mapping[str, Any], spec: Fields, planning: Planning) -> str:
    """``name: text; name: text`` in the fields' order, sanitised as bodies are."""
    parts = [f"{name}: {record[name]}" for name in spec if record.get(name)]
    return planning.text("; ".join(parts), fields.MESSAGE_MAX_CHARS)


class NotedConfig(KindConfig):
    max: StrictInt = max_field(20)  # gh-aw's default


class NotedKind(SafeOutputKind[KindConfig]):
    """A kind that only reports. A kind's module sets ``SPEC`` (its fields), ``REQUIRED`` and
    ``ACTION`` (the tool's description before its limit)."""

    config_model = NotedConfig
    SPEC: ClassVar[Fields]
    REQUIRED: ClassVar[list[str]] = []
    ACTION: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.fields = frozenset(cls.SPEC)

    def tool(self, cfg: KindConfig, settings: Settings) -> tuple[str, dict[str, Any]]:
        return common.join(self.ACTION, common.per_run(cfg.max, "report")), schema(self.SPEC, self.REQUIRED)

    def validate(self, args: Mapping[str, Any], cfg: KindConfig) -> dict[str, Any]:
        return validate(args, self.SPEC, self.REQUIRED)

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: KindConfig, planning: Planning) -> PlannedItem:
        return replace(item, message=message(record, self.SPEC, planning))

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return Applied("noted", details={"message": item.message})
