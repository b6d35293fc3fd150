"""``create_issue``: propose a new issue.

Applied once: before creating, the apply job looks for an issue carrying the record's marker
that its own login wrote (the lookup and the create are retried together).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import StrictInt

from aw_action.safe_outputs.kinds import common, targeted, titled
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field


class CreateIssue(titled.TitledConfig, targeted.RepoConfig):
    max: StrictInt = max_field(1)


class Kind(SafeOutputKind[CreateIssue]):
    name = "create_issue"
    config_model: ClassVar[type[CreateIssue]] = CreateIssue
    fields = titled.FIELDS

    def tool(self, cfg: CreateIssue, settings: Settings) -> tuple[str, dict[str, Any]]:
        return common.join(
            "Propose a new GitHub issue for an actionable bug, feature request or task.",
            common.LATER,
            common.per_run(cfg.max, "issue"),
            titled.prefix_note(cfg.title_prefix),
            titled.labels_note(cfg),
            f"It is opened in {cfg.target_repo}." if cfg.target_repo else "",
        ), common.object_schema(
            {"title": common.TITLE, "body": common.BODY, "labels": common.LABELS}, ["title", "body"]
        )

    def validate(self, args: Mapping[str, Any], cfg: CreateIssue) -> dict[str, Any]:
        return titled.validate(args, cfg)

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: CreateIssue, planning: Planning) -> PlannedItem:
        return titled.plan(item, record, cfg, planning)

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        def attempt() -> Applied:
            found = github.find_item(item.marker)
            if found is not None:
                return Applied("exists", found.url, found.number)
            issue = github.open_issue(item.title or "", item.body or "", item.labels)
            return Applied("created", issue.url, issue.number)

        return github.retry(attempt)


KIND = Kind()
