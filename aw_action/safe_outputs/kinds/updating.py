"""What the kinds that edit an existing issue or pull request share: the parts the config
allows, each a permission given by its presence (``title: null`` or ``true``; absent or ``false``
= not allowed, stricter than gh-aw's newer default for ``body``), the agent's ``operation`` for
the body, and the apply step: one ``PATCH`` holding only what differs from the item as the apply
job finds it (a title or status already so, or a body already holding the record's marker, is
left alone), so a re-apply changes nothing. An issue is never edited as a pull request nor the
other way round. A marker someone else put into the body first makes the body count as done; the
other parts are still applied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import model_validator

from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, GitHub, PlannedItem

OPERATIONS = ("append", "prepend", "replace")
SEPARATOR = "\n\n---\n\n"
GITHUB_BODY_MAX_CHARS = 65_536


class UpdatingConfig(targeted.TargetedConfig):
    """``PARTS``: the config keys that are permissions (set by the subclass)."""

    PARTS: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _present(cls, data: Any) -> Any:
        """A permission is its key's presence (``null`` or ``true``); ``false`` withholds it."""
        if isinstance(data, Mapping):
            data = dict(data)
            for part in cls.PARTS:
                if part in data:
                    data[part] = data[part] is not False
        return data

    def allowed(self) -> list[str]:
        return [p for p in self.PARTS if getattr(self, p)]


def validate(args: Mapping[str, Any], cfg: UpdatingConfig, key: str, number_field: str) -> dict[str, Any]:
    record: dict[str, Any] = {}
    for part in cfg.PARTS:
        if args.get(part) is None:
            continue
        if not getattr(cfg, part):
            raise FieldError(f"{part}: not allowed (safe-outputs.{key}.{part} is not set)")
        if part == "status":
            if args[part] not in ("open", "closed"):
                raise FieldError(f"status: must be open or closed, got {args[part]!r}")
            record[part] = args[part]
        else:
            record[part] = common.title(args) if part == "title" else common.body(args)
    if not record:
        raise FieldError(f"give at least one of: {', '.join(cfg.allowed()) or 'none allowed'}")
    if args.get("operation") is not None:
        if args["operation"] not in OPERATIONS:
            raise FieldError(f"operation: must be one of {', '.join(OPERATIONS)}, got {args['operation']!r}")
        record["operation"] = args["operation"]
    return {**record, **targeted.item_fields(args, cfg, key, number_field)}


def schema_parts(parts: tuple[str, ...], noun: str, default_operation: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "status": {"type": "string", "enum": ["open", "closed"], "description": f"Reopen or close the {noun}"},
        "title": common.TITLE,
        "body": common.BODY,
        "operation": {
            "type": "string",
            "enum": list(OPERATIONS),
            "description": f"How the body meets the {noun}'s: append, prepend or replace (default {default_operation})",
        },
    }
    return {k: v for k, v in out.items() if k in parts or k == "operation"}


def apply(item: PlannedItem, github: GitHub, pull: bool) -> Applied:
    assert item.number is not None
    number = item.number
    found = github.retry(lambda: github.issue(number))
    if found.is_pull != pull:
        what = "a pull request, not an issue" if found.is_pull else "an issue, not a pull request"
        raise ApplyError(f"#{number} is {what}; nothing was changed")
    changes: dict[str, str] = {}
    if item.title is not None and found.title != item.title:
        changes["title"] = item.title
    if item.body is not None and item.marker not in found.body:
        new = item.body
        if item.operation == "append" and found.body:
            new = found.body + SEPARATOR + item.body
        elif item.operation == "prepend" and found.body:
            new = item.body + SEPARATOR + found.body
        if len(new) > GITHUB_BODY_MAX_CHARS:
            raise ApplyError(
                f"#{number}'s body with this {item.operation} would pass GitHub's {GITHUB_BODY_MAX_CHARS:,} "
                "characters; nothing was changed"
            )
        changes["body"] = new
    if item.state is not None and found.state != item.state:
        changes["state"] = item.state
    url = github.item_url(number)
    if not changes:
        return Applied("exists", url, number)
    github.retry(lambda: github.edit_issue(number, changes))
    return Applied("applied", url, number, {"changed": sorted(changes)})
