"""``close_issue``: propose closing an existing issue (``target``) with a comment saying why.

``required-labels`` (every one must be on the issue) and ``required-title-prefix`` limit which
issues the agent may close; they are checked on the issue as the apply job finds it, before any
write, and a pull request is never closed as an issue. Applied once: the comment is looked for by
its marker among the issue's comments this job's login wrote, and the issue is closed (reason
``completed``) only if it is still open; a re-apply posts and changes nothing. An issue someone
already closed still gets the comment (gh-aw's rule).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt, StrictStr, field_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

NUMBER = "issue_number"


class CloseIssue(targeted.TargetedConfig):
    required_labels: tuple[StrictStr, ...] = ()
    """Labels the issue must all carry to be closed."""
    required_title_prefix: StrictStr = ""
    """A prefix the issue's title must start with to be closed."""
    max: StrictInt = max_field(1)

    @field_validator("required_labels")
    @classmethod
    def _labels(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return common.label_names(value) or ()

    @field_validator("required_title_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if value:
            fields.text(value, "", max_chars=fields.TITLE_MAX_CHARS, single_line=True)
        return value


class Kind(SafeOutputKind[CloseIssue]):
    name = "close_issue"
    config_model: ClassVar[type[CloseIssue]] = CloseIssue
    fields = frozenset({"body", NUMBER})

    def tool(self, cfg: CloseIssue, settings: Settings) -> tuple[str, dict[str, Any]]:
        limits = []
        if cfg.required_labels:
            limits.append(f"Only issues labelled {', '.join(cfg.required_labels)} can be closed.")
        if cfg.required_title_prefix:
            limits.append(f'Only issues whose title starts with "{cfg.required_title_prefix}" can be closed.')
        properties: dict[str, Any] = {
            "body": common.string("Closing comment: why the issue is closed", fields.BODY_MAX_CHARS),
            NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        return common.join(
            "Propose closing an issue, with a comment explaining why.",
            targeted.target_note(cfg, NUMBER),
            *limits,
            common.LATER,
            common.per_run(cfg.max, "issue"),
        ), common.object_schema(properties, ["body", *targeted.required(cfg, NUMBER)])

    def validate(self, args: Mapping[str, Any], cfg: CloseIssue) -> dict[str, Any]:
        return {"body": common.body(args), **targeted.item_fields(args, cfg, self.key, NUMBER)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: CloseIssue, planning: Planning) -> PlannedItem:
        number = targeted.target_number(record, cfg, planning, self.key, NUMBER)
        return replace(
            item,
            number=number,
            required_labels=cfg.required_labels,
            required_title_prefix=cfg.required_title_prefix or None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None
        number = item.number
        issue = github.retry(lambda: github.issue(number))
        if issue.is_pull:
            raise ApplyError(f"#{number} is a pull request, not an issue; nothing was changed")
        have = {label.lower() for label in issue.labels}
        missing = [label for label in item.required_labels if label.lower() not in have]
        if missing:
            raise ApplyError(f"#{number} lacks the required label(s) {', '.join(missing)}; not closed")
        prefix = item.required_title_prefix
        if prefix and not issue.title.startswith(prefix):
            raise ApplyError(f"#{number}'s title does not start with the required prefix {prefix!r}; not closed")

        def attempt() -> Applied:
            found = github.find_comment(number, item.marker)
            comment = found or github.post_comment(number, item.body or "")
            return Applied("exists" if found else "created", comment.url, number)

        done = github.retry(attempt)
        closed = False
        if issue.state == "open":
            github.retry(lambda: github.close(number))
            closed = True
        status = "exists" if done.status == "exists" and not closed else "created"
        return Applied(status, done.url, number, {"closed": closed})


KIND = Kind()
