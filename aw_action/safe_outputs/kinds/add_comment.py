"""``add_comment``: propose a comment on an existing issue or pull request (``target``).

Applied once: before posting, the apply job looks through the target's comments for one
carrying the record's marker that its own login wrote (lookup and post retried together).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field


class AddComment(targeted.TargetedConfig):
    max: StrictInt = max_field(1)


class Kind(SafeOutputKind[AddComment]):
    name = "add_comment"
    config_model: ClassVar[type[AddComment]] = AddComment
    fields = frozenset({"body", "item_number"})

    def tool(self, cfg: AddComment, settings: Settings) -> tuple[str, dict[str, Any]]:
        # gh-aw types item_number as number-or-string here
        properties: dict[str, Any] = {
            "body": common.BODY,
            "item_number": targeted.item_schema(cfg, ["number", "string"]),
        }
        return common.join(
            "Propose a comment on an existing issue or pull request.",
            targeted.target_note(cfg),
            common.LATER,
            common.per_run(cfg.max, "comment"),
        ), common.object_schema(properties, ["body", *targeted.required(cfg)])

    def validate(self, args: Mapping[str, Any], cfg: AddComment) -> dict[str, Any]:
        return {"body": common.body(args), **targeted.item_fields(args, cfg, self.key)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: AddComment, planning: Planning) -> PlannedItem:
        return replace(item, number=targeted.target_number(record, cfg, planning, self.key))

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None
        number = item.number

        def attempt() -> Applied:
            found = github.find_comment(number, item.marker)
            if found is not None:
                return Applied("exists", found.url, number)
            comment = github.post_comment(number, item.body or "")
            return Applied("created", comment.url, number)

        return github.retry(attempt)


KIND = Kind()
