"""``update_pull_request``: propose changing an existing pull request's ``title`` or ``body``
(``target``), each only where the config allows it; ``operation`` (``replace`` by default, as in
gh-aw, ``append``, ``prepend``) says how the body meets the pull request's. The rules and the one
``PATCH`` are ``updating.py``'s (an issue is refused; gh-aw's ``update_branch`` and ``draft`` are
not supported)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs.kinds import common, targeted, updating
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

NUMBER = "pull_request_number"


class UpdatePullRequest(updating.UpdatingConfig):
    PARTS: ClassVar[tuple[str, ...]] = ("title", "body")
    title: bool = False
    body: bool = False
    max: StrictInt = max_field(1)


class Kind(SafeOutputKind[UpdatePullRequest]):
    name = "update_pull_request"
    config_model: ClassVar[type[UpdatePullRequest]] = UpdatePullRequest
    fields = frozenset({*UpdatePullRequest.PARTS, "operation", NUMBER})

    def tool(self, cfg: UpdatePullRequest, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties = updating.schema_parts(cfg.PARTS, "pull request", "replace")
        properties[NUMBER] = targeted.item_schema(cfg, ["number", "string"])
        return common.join(
            "Propose changing an existing pull request's title or description.",
            f"You may change: {', '.join(cfg.allowed()) or 'nothing (the config allows no part)'}.",
            targeted.target_note(cfg, NUMBER),
            common.LATER,
            common.per_run(cfg.max, "update"),
        ), common.object_schema(properties, targeted.required(cfg, NUMBER))

    def validate(self, args: Mapping[str, Any], cfg: UpdatePullRequest) -> dict[str, Any]:
        return updating.validate(args, cfg, self.key, NUMBER)

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: UpdatePullRequest, planning: Planning
    ) -> PlannedItem:
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, NUMBER),
            title=planning.title(record["title"], "") if record.get("title") else None,
            operation=record.get("operation", "replace") if item.body is not None else None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return updating.apply(item, github, pull=True)


KIND = Kind()
