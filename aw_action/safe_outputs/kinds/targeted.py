"""What the kinds that act on an existing issue or pull request share: the config's ``target``,
the agent's ``item_number`` and, when applied, the item as GitHub has it (``existing``).

``item_number`` stays in the schema, as in gh-aw, but is required only when ``target`` is ``*``;
otherwise the target is fixed, the description says where the item goes, and a given
``item_number`` is refused with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import field_validator, model_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds.apply_api import ApplyError, GitHub, IssueState, Planning
from aw_action.safe_outputs.kinds.base import KindConfig, RequestError

Target = Literal["triggering", "*"] | int
_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class RepoConfig(KindConfig):
    """``target-repo``: ``owner/name`` the items go to instead of the job's repository (gh-aw's
    key on every kind that acts on an issue or pull request, and on the one that opens issues). The apply
    job's token must reach it: apply checks that before the first write there, and its error
    names the kind and the repository when it does not (``apply_outputs/github_writer.py``)."""

    target_repo: str | None = None

    @field_validator("target_repo")
    @classmethod
    def _target_repo(cls, value: str | None) -> str | None:
        if value is not None and not _REPOSITORY.match(value):
            raise ValueError(f"must be owner/name, got {value!r}")
        return value

    def repository(self) -> str | None:
        return self.target_repo


class TargetedConfig(RepoConfig):
    target: Target = "triggering"
    """``triggering`` (the event's issue or pull request), ``*`` (the agent names it) or a number.
    With ``target-repo``, a number (given or named) is one in that repository; ``triggering`` (the
    event's number, which belongs to the job's own repository) is a config error there."""

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, value: Any) -> Any:
        if value in ("triggering", "*"):
            return value
        try:
            return fields.item_number(value, "target")
        except FieldError:
            raise ValueError("must be 'triggering', '*' or an issue/pull request number") from None

    @model_validator(mode="after")
    def _triggering_elsewhere(self) -> TargetedConfig:
        if self.target_repo is not None and self.target == "triggering":
            raise ValueError(
                f"target-repo {self.target_repo} needs target '*' or a number: the triggering issue or "
                "pull request belongs to the workflow's own repository"
            )
        return self


TargetRepoConfig = TargetedConfig
"""The review kinds' name for it (every targeted kind has ``target-repo`` now)."""


def item_fields(args: Mapping[str, Any], cfg: TargetedConfig, key: str, field: str = "item_number") -> dict[str, Any]:
    """``field`` (gh-aw's ``item_number``, or ``pull_request_number`` for the review kinds) is
    required with ``target: '*'`` and refused otherwise (the target is fixed)."""
    given = args.get(field)
    if cfg.target == "*":
        if given is None:
            raise FieldError(f"{field}: required (safe-outputs.{key}.target is '*')")
        return {field: fields.item_number(given, field)}
    if given is not None:
        where = "the triggering issue or pull request" if cfg.target == "triggering" else f"#{cfg.target}"
        raise FieldError(f"{field}: not allowed; safe-outputs.{key}.target is {cfg.target!r}, so it goes to {where}")
    return {}


def target_number(
    record: Mapping[str, Any], cfg: TargetedConfig, planning: Planning, key: str, field: str = "item_number"
) -> int | None:
    """The issue or pull request number; None only in a dry run without an event."""
    if cfg.target == "*":
        return int(record[field])
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


def required(cfg: TargetedConfig, field: str = "item_number") -> list[str]:
    return [field] if cfg.target == "*" else []


def target_note(cfg: TargetedConfig, field: str = "item_number") -> str:
    where = f" in {cfg.target_repo}" if cfg.target_repo else ""
    if cfg.target == "*":
        return f"Name the issue or pull request{where} with {field}."
    if cfg.target == "triggering":
        return "It goes to the issue or pull request that triggered this run."
    return f"It goes to #{cfg.target}{where}."


def existing(github: GitHub, number: int, pull: bool) -> IssueState:
    """Item ``number`` as the apply job finds it; ``ApplyError`` when it is an issue where a pull
    request was meant (``pull``) or the other way round: nothing is changed."""
    found = github.retry(lambda: github.issue(number))
    if found.is_pull != pull:
        what = "a pull request, not an issue" if found.is_pull else "an issue, not a pull request"
        raise ApplyError(f"#{number} is {what}; nothing was changed")
    return found
