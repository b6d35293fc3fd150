"""What the kinds that act on an existing issue or pull request share: the config's ``target``
and the agent's ``item_number``.

``item_number`` stays in the schema, as in gh-aw, but is required only when ``target`` is ``*``;
otherwise the target is fixed, the description says where the item goes, and a given
``item_number`` is refused with that reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import field_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds.apply_api import Planning
from aw_action.safe_outputs.kinds.base import KindConfig, RequestError

Target = Literal["triggering", "*"] | int


class TargetedConfig(KindConfig):
    target: Target = "triggering"
    """``triggering`` (the event's issue or pull request), ``*`` (the agent names it) or a number."""

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, value: Any) -> Any:
        if value in ("triggering", "*"):
            return value
        try:
            return fields.item_number(value, "target")
        except FieldError:
            raise ValueError("must be 'triggering', '*' or an issue/pull request number") from None


def item_fields(args: Mapping[str, Any], cfg: TargetedConfig, key: str) -> dict[str, Any]:
    """``item_number`` is required with ``target: '*'`` and refused otherwise (the target is fixed)."""
    given = args.get("item_number")
    if cfg.target == "*":
        if given is None:
            raise FieldError(f"item_number: required (safe-outputs.{key}.target is '*')")
        return {"item_number": fields.item_number(given, "item_number")}
    if given is not None:
        where = "the triggering issue or pull request" if cfg.target == "triggering" else f"#{cfg.target}"
        raise FieldError(
            f"item_number: not allowed; safe-outputs.{key}.target is {cfg.target!r}, so it goes to {where}"
        )
    return {}


def target_number(record: Mapping[str, Any], cfg: TargetedConfig, planning: Planning, key: str) -> int | None:
    """The issue or pull request number; None only in a dry run without an event."""
    if cfg.target == "*":
        return int(record["item_number"])
    if isinstance(cfg.target, int):
        return cfg.target
    number = planning.triggering_number()
    if number is None and not planning.previewing:
        raise RequestError(
            f"no triggering issue or pull request in this event; set safe-outputs.{key}.target to '*' or a number"
        )
    return number


def item_schema(cfg: TargetedConfig, json_type: str | list[str]) -> dict[str, Any]:
    if cfg.target == "*":
        return {"type": json_type, "description": "The issue or pull request number to act on"}
    return {"type": json_type, "description": "Not used here: the target is fixed (leave it out)"}


def required(cfg: TargetedConfig) -> list[str]:
    return ["item_number"] if cfg.target == "*" else []


def target_note(cfg: TargetedConfig) -> str:
    if cfg.target == "*":
        return "Name the issue or pull request with item_number."
    if cfg.target == "triggering":
        return "It goes to the issue or pull request that triggered this run."
    return f"It goes to #{cfg.target}."
