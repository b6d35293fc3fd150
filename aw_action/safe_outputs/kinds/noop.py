"""``noop``: record that the task needs no GitHub change, so the run still leaves a visible
result. The apply job writes nothing; it reports the message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import KindConfig, SafeOutputKind, Settings, max_field


class Noop(KindConfig):
    max: StrictInt = max_field(1)


class Kind(SafeOutputKind[Noop]):
    name = "noop"
    config_model: ClassVar[type[Noop]] = Noop
    fields = frozenset({"message"})

    def tool(self, cfg: Noop, settings: Settings) -> tuple[str, dict[str, Any]]:
        message = common.string("What you checked and why nothing needs doing", fields.MESSAGE_MAX_CHARS)
        return common.join(
            "Record that the task needs no GitHub change (e.g. 'no issues found'), so the run still leaves "
            "a visible result.",
            common.per_run(cfg.max, "message"),
        ), common.object_schema({"message": message}, ["message"])

    def validate(self, args: Mapping[str, Any], cfg: Noop) -> dict[str, Any]:
        return {"message": fields.text(args.get("message"), "message", max_chars=fields.MESSAGE_MAX_CHARS)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: Noop, planning: Planning) -> PlannedItem:
        return replace(item, message=planning.text(record["message"], fields.MESSAGE_MAX_CHARS))

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return Applied("noted", details={"message": item.message})


KIND = Kind()
