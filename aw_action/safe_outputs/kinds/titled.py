"""What the kinds that create a titled item (an issue, a pull request) share: the config's title
prefix and labels, the title/body/labels fields, and planning the title and labels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from pydantic import StrictStr, field_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds.apply_api import PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import KindConfig
from aw_action.safe_outputs.kinds.common import body, label_names, title

TITLE_PREFIX_MAX_CHARS = 64
FIELDS = frozenset({"title", "body", "labels"})


class TitledConfig(KindConfig):
    title_prefix: StrictStr = ""
    labels: tuple[StrictStr, ...] = ()
    """Added to every item created, as gh-aw does."""
    allowed_labels: tuple[StrictStr, ...] | None = None
    """Labels the agent may add itself; absent = any label."""

    @field_validator("title_prefix")
    @classmethod
    def _prefix(cls, value: str) -> str:
        if value.strip():  # keep the trailing space: "[bot] " reads differently from "[bot]"
            fields.text(value, "", max_chars=TITLE_PREFIX_MAX_CHARS, single_line=True)
        return value

    @field_validator("labels", "allowed_labels")
    @classmethod
    def _labels(cls, value: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return label_names(value)


def validate(args: Mapping[str, Any], cfg: TitledConfig) -> dict[str, Any]:
    record: dict[str, Any] = {"title": title(args), "body": body(args)}
    if args.get("labels") is not None:
        record["labels"] = fields.labels(args["labels"], "labels", cfg.allowed_labels)
    return record


def _merged_labels(*groups: Iterable[str]) -> tuple[str, ...]:
    out: dict[str, str] = {}
    for name in (n for group in groups for n in group):
        out.setdefault(name.lower(), name)
    return tuple(out.values())


def plan(item: PlannedItem, record: Mapping[str, Any], cfg: TitledConfig, planning: Planning) -> PlannedItem:
    """The title with the config's prefix (once), the config's labels before the agent's."""
    labels = _merged_labels(cfg.labels, record.get("labels", ()))
    return replace(item, title=planning.title(record["title"], cfg.title_prefix), labels=labels)


def labels_note(cfg: TitledConfig) -> str:
    parts = []
    if cfg.labels:
        parts.append(f"Labels always added: {', '.join(cfg.labels)}.")
    if cfg.allowed_labels is not None:
        parts.append(f"Labels you may add: {', '.join(cfg.allowed_labels) or 'none'}.")
    return " ".join(parts)


def prefix_note(prefix: str) -> str:
    return f'Titles get the prefix "{prefix}".' if prefix.strip() else ""
