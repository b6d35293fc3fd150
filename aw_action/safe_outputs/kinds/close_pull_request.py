"""``close_pull_request``: propose closing a pull request without merging it (``target``), with a
comment saying why; the filters and the apply steps are ``closing.py``'s (an issue is refused)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import closing, common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

NUMBER = "pull_request_number"


class ClosePullRequest(closing.ClosingConfig):
    max: StrictInt = max_field(1)


class Kind(SafeOutputKind[ClosePullRequest]):
    name = "close_pull_request"
    config_model: ClassVar[type[ClosePullRequest]] = ClosePullRequest
    fields = frozenset({"body", NUMBER})

    def tool(self, cfg: ClosePullRequest, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties: dict[str, Any] = {
            "body": common.string("Closing comment: why the pull request is closed unmerged", fields.BODY_MAX_CHARS),
            NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        return common.join(
            "Propose closing a pull request without merging it, with a comment explaining why.",
            targeted.target_note(cfg, NUMBER),
            *closing.notes(cfg, "pull request"),
            common.LATER,
            common.per_run(cfg.max, "pull request"),
        ), common.object_schema(properties, ["body", *targeted.required(cfg, NUMBER)])

    def validate(self, args: Mapping[str, Any], cfg: ClosePullRequest) -> dict[str, Any]:
        return {"body": common.body(args), **targeted.item_fields(args, cfg, self.key, NUMBER)}

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: ClosePullRequest, planning: Planning
    ) -> PlannedItem:
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, NUMBER),
            required_labels=cfg.required_labels,
            required_title_prefix=cfg.required_title_prefix or None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return closing.apply(item, github, pull=True)


KIND = Kind()
