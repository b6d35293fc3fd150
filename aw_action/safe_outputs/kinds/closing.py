"""What the kinds that close an issue or a pull request share: the config's filters, the tool,
the planning and the apply steps (``ClosingKind``; a kind's module says which item it closes).

``required-labels`` (every one must be on the item) and ``required-title-prefix`` limit what the
agent may close; they are checked on the item as the apply job finds it, before any write, and
an issue is never closed as a pull request nor the other way round. Applied once: the closing
comment is looked for by its marker among the item's comments this job's login wrote, and the
item is closed only if it is still open; a re-apply posts and changes nothing. An item someone
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


class ClosingConfig(targeted.TargetedConfig):
    max: StrictInt = max_field(1)
    required_labels: tuple[StrictStr, ...] = ()
    """Labels the item must all carry to be closed."""
    required_title_prefix: StrictStr = ""
    """A prefix the item's title must start with to be closed."""

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


def notes(cfg: ClosingConfig, noun: str) -> list[str]:
    out = []
    if cfg.required_labels:
        out.append(f"Only {noun}s labelled {', '.join(cfg.required_labels)} can be closed.")
    if cfg.required_title_prefix:
        out.append(f'Only {noun}s whose title starts with "{cfg.required_title_prefix}" can be closed.')
    return out


def apply(item: PlannedItem, github: GitHub, pull: bool) -> Applied:
    """Check the filters on the item now, post the comment once, close it if open."""
    assert item.number is not None
    number = item.number
    found_item = targeted.existing(github, number, pull)
    have = {label.lower() for label in found_item.labels}
    missing = [label for label in item.required_labels if label.lower() not in have]
    if missing:
        raise ApplyError(f"#{number} lacks the required label(s) {', '.join(missing)}; not closed")
    prefix = item.required_title_prefix
    if prefix and not found_item.title.startswith(prefix):
        raise ApplyError(f"#{number}'s title does not start with the required prefix {prefix!r}; not closed")

    def attempt() -> Applied:
        found = github.find_comment(number, item.marker)
        comment = found or github.post_comment(number, item.body or "")
        return Applied("exists" if found else "created", comment.url, number)

    done = github.retry(attempt)
    closed = False
    if found_item.state == "open":
        github.retry(lambda: github.close(number, pull))
        closed = True
    status = "exists" if done.status == "exists" and not closed else "created"
    return Applied(status, done.url, number, {"closed": closed})


class ClosingKind(SafeOutputKind[ClosingConfig]):
    """A kind that closes one item with a comment. A kind's module sets what it closes: ``NOUN``
    (``issue``), ``NUMBER`` (its number field), ``PULL`` (a pull request, not an issue), ``ACTION``
    (the tool's first sentence) and ``BODY_ABOUT`` (what the closing comment says)."""

    config_model = ClosingConfig
    NOUN: ClassVar[str]
    NUMBER: ClassVar[str]
    PULL: ClassVar[bool]
    ACTION: ClassVar[str]
    BODY_ABOUT: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.fields = frozenset({"body", cls.NUMBER})

    def tool(self, cfg: ClosingConfig, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties: dict[str, Any] = {
            "body": common.string(self.BODY_ABOUT, fields.BODY_MAX_CHARS),
            self.NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        return common.join(
            self.ACTION,
            targeted.target_note(cfg, self.NUMBER),
            *notes(cfg, self.NOUN),
            common.LATER,
            common.per_run(cfg.max, self.NOUN),
        ), common.object_schema(properties, ["body", *targeted.required(cfg, self.NUMBER)])

    def validate(self, args: Mapping[str, Any], cfg: ClosingConfig) -> dict[str, Any]:
        return {"body": common.body(args), **targeted.item_fields(args, cfg, self.key, self.NUMBER)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: ClosingConfig, planning: Planning) -> PlannedItem:
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, self.NUMBER),
            required_labels=cfg.required_labels,
            required_title_prefix=cfg.required_title_prefix or None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        return apply(item, github, pull=self.PULL)
