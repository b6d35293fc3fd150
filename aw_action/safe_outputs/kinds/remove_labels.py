"""``remove_labels``: propose removing labels from an existing issue or pull request
(``target``), from the config's ``allowed`` list when it has one (exact names; gh-aw's glob
patterns and ``blocked`` list are not supported). A label the item does not carry is skipped, so
removing is idempotent by itself."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt, StrictStr, field_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field


class RemoveLabels(targeted.TargetedConfig):
    allowed: tuple[StrictStr, ...] | None = None
    """The labels the agent may remove; absent = any label."""
    max: StrictInt = max_field(3)  # gh-aw's default

    @field_validator("allowed")
    @classmethod
    def _allowed(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return common.label_names(value)


class Kind(SafeOutputKind[RemoveLabels]):
    name = "remove_labels"
    config_model: ClassVar[type[RemoveLabels]] = RemoveLabels
    fields = frozenset({"labels", "item_number"})

    def tool(self, cfg: RemoveLabels, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties: dict[str, Any] = {"labels": common.LABELS, "item_number": targeted.item_schema(cfg, "number")}
        allowed = f"Labels you may remove: {', '.join(cfg.allowed)}." if cfg.allowed is not None else ""
        return common.join(
            "Propose removing labels from an existing issue or pull request (a label it does not carry is skipped).",
            targeted.target_note(cfg),
            common.LATER,
            common.per_run(cfg.max, f"{self.name} call"),
            allowed,
        ), common.object_schema(properties, ["labels", *targeted.required(cfg)])

    def validate(self, args: Mapping[str, Any], cfg: RemoveLabels) -> dict[str, Any]:
        names = fields.labels(args.get("labels"), "labels", cfg.allowed)
        if not names:
            raise FieldError("labels: name at least one label")
        return {"labels": names, **targeted.item_fields(args, cfg, self.key)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: RemoveLabels, planning: Planning) -> PlannedItem:
        number = targeted.target_number(record, cfg, planning, self.key)
        return replace(item, labels=tuple(record.get("labels", ())), number=number)

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None
        number = item.number
        removed = github.retry(lambda: github.unlabel(number, item.labels))
        return Applied("applied", github.item_url(number), number, {"removed": list(removed)})


KIND = Kind()
