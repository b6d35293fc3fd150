"""``missing_tool``: the agent reports a tool or capability it needed and did not have. Recorded
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
    "tool": (128, "Name of the missing tool or capability"),
    "reason": (256, "Why it is needed, or what it kept you from doing"),
    "alternatives": (512, "Workarounds a person could use"),
}
REQUIRED = ["reason"]


class MissingTool(KindConfig):
    max: StrictInt = max_field(20)  # gh-aw's default


class Kind(SafeOutputKind[MissingTool]):
    name = "missing_tool"
    config_model: ClassVar[type[MissingTool]] = MissingTool
    fields = frozenset(SPEC)

    def tool(self, cfg: MissingTool, settings: Settings) -> tuple[str, dict[str, Any]]:
        return common.join(
            "Report a tool or capability you needed for the task and did not have, so the workflow's "
            "maintainers see it. Nothing is written to GitHub.",
            common.per_run(cfg.max, "report"),
        ), noted.schema(SPEC, REQUIRED)

    def validate(self, args: Mapping[str, Any], cfg: MissingTool) -> dict[str, Any]:
        return noted.validate(args, SPEC, REQUIRED)

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: MissingTool, planning: Planning) -> PlannedItem:
        return replace(item, message=noted.message(record, SPEC, planning))

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return Applied("noted", details={"message": item.message})


KIND = Kind()
