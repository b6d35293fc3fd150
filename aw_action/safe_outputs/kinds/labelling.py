"""What the kinds that add or remove labels share (``LabelsKind``; a kind's module says which it
does): the config's ``allowed`` list (absent = any label), the tool, the validation and the
planning of an existing issue or pull request (``target``) and its label names."""

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


class LabelsConfig(targeted.TargetedConfig):
    allowed: tuple[StrictStr, ...] | None = None
    """The labels the agent may add (or remove); absent = any label."""
    max: StrictInt = max_field(3)  # gh-aw's default

    @field_validator("allowed")
    @classmethod
    def _allowed(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return common.label_names(value)


class LabelsKind(SafeOutputKind[LabelsConfig]):
    """A kind that changes an item's labels. A kind's module sets ``ACTION`` (the tool's first
    sentence), ``VERB`` (``add``, ``remove``: what the agent may do with the allowed labels) and
    ``change`` (the GitHub call and what it reports)."""

    config_model = LabelsConfig
    ACTION: ClassVar[str]
    VERB: ClassVar[str]
    fields = frozenset({"labels", "item_number"})

    def tool(self, cfg: LabelsConfig, settings: Settings) -> tuple[str, dict[str, Any]]:
        item_number = targeted.item_schema(cfg, "number")  # gh-aw's type here: number only
        properties: dict[str, Any] = {"labels": common.LABELS, "item_number": item_number}
        allowed = f"Labels you may {self.VERB}: {', '.join(cfg.allowed)}." if cfg.allowed is not None else ""
        return common.join(
            self.ACTION,
            targeted.target_note(cfg),
            common.LATER,
            common.per_run(cfg.max, f"{self.name} call"),
            allowed,
        ), common.object_schema(properties, ["labels", *targeted.required(cfg)])

    def validate(self, args: Mapping[str, Any], cfg: LabelsConfig) -> dict[str, Any]:
        names = fields.labels(args.get("labels"), "labels", cfg.allowed)
        if not names:
            raise FieldError("labels: name at least one label")
        return {"labels": names, **targeted.item_fields(args, cfg, self.key)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: LabelsConfig, planning: Planning) -> PlannedItem:
        number = targeted.target_number(record, cfg, planning, self.key)
        return replace(item, labels=tuple(record.get("labels", ())), number=number)

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None
        details = self.change(github, item.number, item.labels)
        return Applied("applied", github.item_url(item.number), item.number, details)

    def change(self, github: GitHub, number: int, labels: tuple[str, ...]) -> dict[str, Any]:
        """Change ``number``'s labels on GitHub (through ``github.retry``); the applied details."""
        raise NotImplementedError
