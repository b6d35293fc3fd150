"""``missing_data``: the agent reports data or information it needed and could not get. Recorded
and shown (step summary, dry run, apply report); nothing is written to GitHub."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs.kinds import common, noted
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import KindConfig, SafeOutputKind, Settings, max_field

SPEC: noted.Fields = {
    "data_type": (128, "What data or information is missing"),
    "reason": (256, "Why the task needs it"),
    "context": (256, "Where it should come from"),
    "alternatives": (256, "Workarounds a person could use"),
}


class MissingData(KindConfig):
    max: StrictInt = max_field(20)


class Kind(SafeOutputKind[MissingData]):
    name = "missing_data"
    config_model: ClassVar[type[MissingData]] = MissingData
    fields = frozenset(SPEC)

    def tool(self, cfg: MissingData, settings: Settings) -> tuple[str, dict[str, Any]]:
        return common.join(
            "Report data or information you needed for the task and could not get, so the workflow's "
            "maintainers see it. Nothing is written to GitHub.",
            common.per_run(cfg.max, "report"),
        ), noted.schema(SPEC, [])

    def validate(self, args: Mapping[str, Any], cfg: MissingData) -> dict[str, Any]:
        return noted.validate(args, SPEC, [])

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: MissingData, planning: Planning) -> PlannedItem:
        return replace(item, message=noted.message(record, SPEC, planning))

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return Applied("noted", details={"message": item.message})


KIND = Kind()
