"""``update_issue``: propose changing an existing issue's status, title or body (``target``),
each only where the config allows it: ``status``, ``title`` and ``body`` are permissions, given
by their presence (``title: null`` or ``true``; absent or ``false`` = not allowed), as in gh-aw.

The body is sanitised and carries the footer and marker; ``operation`` says how it meets the
issue's body: ``append`` (the default, after a separator), ``prepend`` or ``replace``. Applied
with one ``PATCH /issues/{n}`` holding only what differs from the issue as the apply job finds
it: a title or status already so, or a body already holding the marker, is left alone, so a
re-apply changes nothing. A pull request is refused (it is not an issue). A marker someone else
put into the issue's body first would make the body count as done: the title and status are
still applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import StrictInt, model_validator

from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

NUMBER = "issue_number"
PARTS = ("status", "title", "body")
OPERATIONS = ("append", "prepend", "replace")
SEPARATOR = "\n\n---\n\n"
GITHUB_BODY_MAX_CHARS = 65_536


class UpdateIssue(targeted.TargetedConfig):
    status: bool = False
    title: bool = False
    body: bool = False
    max: StrictInt = max_field(1)

    @model_validator(mode="before")
    @classmethod
    def _present(cls, data: Any) -> Any:
        """A permission is its key's presence (``null`` or ``true``); ``false`` withholds it."""
        if isinstance(data, Mapping):
            data = dict(data)
            for part in PARTS:
                if part in data:
                    data[part] = data[part] is not False
        return data


class Kind(SafeOutputKind[UpdateIssue]):
    name = "update_issue"
    config_model: ClassVar[type[UpdateIssue]] = UpdateIssue
    fields = frozenset({*PARTS, "operation", NUMBER})

    def tool(self, cfg: UpdateIssue, settings: Settings) -> tuple[str, dict[str, Any]]:
        allowed = [p for p in PARTS if getattr(cfg, p)]
        properties: dict[str, Any] = {
            "status": {"type": "string", "enum": ["open", "closed"], "description": "Reopen or close the issue"},
            "title": common.TITLE,
            "body": common.BODY,
            "operation": {
                "type": "string",
                "enum": list(OPERATIONS),
                "description": "How the body meets the issue's: append (default), prepend or replace",
            },
            NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        return common.join(
            "Propose changing an existing issue.",
            f"You may change: {', '.join(allowed) or 'nothing (the config allows no part)'}.",
            targeted.target_note(cfg, NUMBER),
            common.LATER,
            common.per_run(cfg.max, "update"),
        ), common.object_schema(properties, targeted.required(cfg, NUMBER))

    def validate(self, args: Mapping[str, Any], cfg: UpdateIssue) -> dict[str, Any]:
        record: dict[str, Any] = {}
        for part in PARTS:
            if args.get(part) is None:
                continue
            if not getattr(cfg, part):
                raise FieldError(f"{part}: not allowed (safe-outputs.{self.key}.{part} is not set)")
            if part == "status":
                if args[part] not in ("open", "closed"):
                    raise FieldError(f"status: must be open or closed, got {args[part]!r}")
                record[part] = args[part]
            else:
                record[part] = common.title(args) if part == "title" else common.body(args)
        if not record:
            raise FieldError(
                f"give at least one of: {', '.join(p for p in PARTS if getattr(cfg, p)) or 'none allowed'}"
            )
        if args.get("operation") is not None:
            if args["operation"] not in OPERATIONS:
                raise FieldError(f"operation: must be one of {', '.join(OPERATIONS)}, got {args['operation']!r}")
            record["operation"] = args["operation"]
        return {**record, **targeted.item_fields(args, cfg, self.key, NUMBER)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: UpdateIssue, planning: Planning) -> PlannedItem:
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, NUMBER),
            title=planning.title(record["title"], "") if record.get("title") else None,
            state=record.get("status"),
            operation=record.get("operation", "append") if item.body is not None else None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None
        number = item.number
        issue = github.retry(lambda: github.issue(number))
        if issue.is_pull:
            raise ApplyError(f"#{number} is a pull request, not an issue; nothing was changed")
        changes: dict[str, str] = {}
        if item.title is not None and issue.title != item.title:
            changes["title"] = item.title
        if item.body is not None and item.marker not in issue.body:
            new = item.body
            if item.operation == "append" and issue.body:
                new = issue.body + SEPARATOR + item.body
            elif item.operation == "prepend" and issue.body:
                new = item.body + SEPARATOR + issue.body
            if len(new) > GITHUB_BODY_MAX_CHARS:
                raise ApplyError(
                    f"#{number}'s body with this {item.operation} would pass GitHub's {GITHUB_BODY_MAX_CHARS:,} "
                    "characters; nothing was changed"
                )
            changes["body"] = new
        if item.state is not None and issue.state != item.state:
            changes["state"] = item.state
        url = github.item_url(number)
        if not changes:
            return Applied("exists", url, number)
        github.retry(lambda: github.edit_issue(number, changes))
        return Applied("applied", url, number, {"changed": sorted(changes)})


KIND = Kind()
