"""What the kinds that edit an existing issue or pull request share (``UpdatingKind``; a kind's
module says which item it edits and which parts it has): the parts the config allows, each a
permission given by its presence (``title: null`` or ``true``; absent or ``false`` = not allowed,
stricter than gh-aw's newer default for ``body``), the agent's ``operation`` for the body, and
the apply step: one ``PATCH`` holding only what differs from the item as the apply job finds it
(a title or status already so, or a body already holding the record's marker, is left alone), so
a re-apply changes nothing. An issue is never edited as a pull request nor the other way round.
A marker someone else put into the body first makes the body count as done; the other parts are
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

OPERATIONS = ("append", "prepend", "replace")
SEPARATOR = "\n\n---\n\n"
GITHUB_BODY_MAX_CHARS = 65_536


class UpdatingConfig(targeted.TargetedConfig):
    """``PARTS``: the config keys that are permissions (set by the subclass)."""

    PARTS: ClassVar[tuple[str, ...]] = ()
    max: StrictInt = max_field(1)

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
    found = targeted.existing(github, number, pull)
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


class UpdatingKind(SafeOutputKind[UpdatingConfig]):
    """A kind that edits one item. A kind's module sets ``NOUN``, ``NUMBER`` (its number field),
    ``PULL`` (a pull request, not an issue), ``ACTION`` (the tool's first sentence) and
    ``DEFAULT_OPERATION`` (how a body meets the item's when the agent does not say); its config
    model's ``PARTS`` are what may change."""

    config_model: ClassVar[type[UpdatingConfig]]
    NOUN: ClassVar[str]
    NUMBER: ClassVar[str]
    PULL: ClassVar[bool]
    ACTION: ClassVar[str]
    DEFAULT_OPERATION: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.fields = frozenset({*cls.config_model.PARTS, "operation", cls.NUMBER})

    def tool(self, cfg: UpdatingConfig, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties = schema_parts(cfg.PARTS, self.NOUN, self.DEFAULT_OPERATION)
        properties[self.NUMBER] = targeted.item_schema(cfg, ["number", "string"])
        return common.join(
            self.ACTION,
            f"You may change: {', '.join(cfg.allowed()) or 'nothing (the config allows no part)'}.",
            targeted.target_note(cfg, self.NUMBER),
            common.LATER,
            common.per_run(cfg.max, "update"),
        ), common.object_schema(properties, targeted.required(cfg, self.NUMBER))

    def validate(self, args: Mapping[str, Any], cfg: UpdatingConfig) -> dict[str, Any]:
        return validate(args, cfg, self.key, self.NUMBER)

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: UpdatingConfig, planning: Planning
    ) -> PlannedItem:
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, self.NUMBER),
            title=planning.title(record["title"], "") if record.get("title") else None,
            state=record.get("status") if "status" in cfg.PARTS else None,
            operation=record.get("operation", self.DEFAULT_OPERATION) if item.body is not None else None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return apply(item, github, pull=self.PULL)
