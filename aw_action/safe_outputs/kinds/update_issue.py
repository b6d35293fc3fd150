"""``update_issue``: propose changing an existing issue's ``status``, ``title`` or ``body``
(``target``), each only where the config allows it; ``operation`` (``append`` by default,
``prepend``, ``replace``) says how the body meets the issue's. The rules and the one ``PATCH``
are ``updating.py``'s (a pull request is refused)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs.kinds import common, targeted, updating
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

NUMBER = "issue_number"


class UpdateIssue(updating.UpdatingConfig):
    PARTS: ClassVar[tuple[str, ...]] = ("status", "title", "body")
    status: bool = False
    title: bool = False
    body: bool = False
    max: StrictInt = max_field(1)


class Kind(SafeOutputKind[UpdateIssue]):
    name = "update_issue"
    config_model: ClassVar[type[UpdateIssue]] = UpdateIssue
    fields = frozenset({*UpdateIssue.PARTS, "operation", NUMBER})

    def tool(self, cfg: UpdateIssue, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties = updating.schema_parts(cfg.PARTS, "issue", "append")
        properties[NUMBER] = targeted.item_schema(cfg, ["number", "string"])
        return common.join(
            "Propose changing an existing issue.",
            f"You may change: {', '.join(cfg.allowed()) or 'nothing (the config allows no part)'}.",
            targeted.target_note(cfg, NUMBER),
            common.LATER,
            common.per_run(cfg.max, "update"),
        ), common.object_schema(properties, targeted.required(cfg, NUMBER))

    def validate(self, args: Mapping[str, Any], cfg: UpdateIssue) -> dict[str, Any]:
        return updating.validate(args, cfg, self.key, NUMBER)

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: UpdateIssue, planning: Planning) -> PlannedItem:
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, NUMBER),
            title=planning.title(record["title"], "") if record.get("title") else None,
            state=record.get("status"),
            operation=record.get("operation", "append") if item.body is not None else None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return updating.apply(item, github, pull=False)


KIND = Kind()
