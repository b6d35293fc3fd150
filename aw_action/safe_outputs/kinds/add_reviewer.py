"""``add_reviewer``: propose requesting reviews on a pull request (``target``) from users
(``reviewers``) and teams (``team_reviewers``), each from the config's allowed list when it has
one (``reviewers``/``team-reviewers``, or their newer names ``allowed-reviewers``/
``allowed-team-reviewers``). One ``POST /pulls/{n}/requested_reviewers``; requesting a review
again is harmless, so it is idempotent by itself. GitHub refuses the pull request's author as a
reviewer (the apply error says so)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pydantic import AliasChoices, Field, StrictInt, StrictStr

from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

NUMBER = "pull_request_number"
LOGIN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
TEAM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")
PER_CALL = 15


class AddReviewer(targeted.TargetedConfig):
    reviewers: tuple[StrictStr, ...] | None = Field(
        default=None, validation_alias=AliasChoices("reviewers", "allowed-reviewers")
    )
    """Users the agent may request; absent = any user."""
    team_reviewers: tuple[StrictStr, ...] | None = Field(
        default=None, validation_alias=AliasChoices("team-reviewers", "allowed-team-reviewers")
    )
    """Team slugs the agent may request; absent = any team."""
    max: StrictInt = max_field(3)  # gh-aw's default


def _names(value: Any, field: str, pattern: re.Pattern[str], allowed: tuple[str, ...] | None) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > PER_CALL:
        raise FieldError(f"{field}: must be a list of at most {PER_CALL} names")
    permitted = {a.lower(): a for a in allowed} if allowed is not None else None
    out: dict[str, str] = {}
    for i, item in enumerate(value):
        name = item.strip().removeprefix("@") if isinstance(item, str) else ""
        if not pattern.match(name):
            raise FieldError(f"{field}[{i}]: {item!r} is not a valid name")
        if permitted is not None:
            if name.lower() not in permitted:
                raise FieldError(
                    f"{field}: {name!r} is not allowed (allowed: {', '.join(permitted.values()) or 'none'})"
                )
            name = permitted[name.lower()]
        out.setdefault(name.lower(), name)
    return list(out.values())


class Kind(SafeOutputKind[AddReviewer]):
    name = "add_reviewer"
    config_model: ClassVar[type[AddReviewer]] = AddReviewer
    fields = frozenset({"reviewers", "team_reviewers", NUMBER})

    def tool(self, cfg: AddReviewer, settings: Settings) -> tuple[str, dict[str, Any]]:
        names = {"type": "array", "items": {"type": "string"}}
        properties: dict[str, Any] = {
            "reviewers": {**names, "description": "GitHub logins to request a review from"},
            "team_reviewers": {**names, "description": "Team slugs to request a review from"},
            NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        allowed = [
            f"Users you may request: {', '.join(cfg.reviewers) or 'none'}." if cfg.reviewers is not None else "",
            f"Teams you may request: {', '.join(cfg.team_reviewers) or 'none'}."
            if cfg.team_reviewers is not None
            else "",
        ]
        return common.join(
            "Propose requesting a review on a pull request from users or teams.",
            targeted.target_note(cfg, NUMBER),
            common.LATER,
            common.per_run(cfg.max, f"{self.name} call"),
            *allowed,
        ), common.object_schema(properties, targeted.required(cfg, NUMBER))

    def validate(self, args: Mapping[str, Any], cfg: AddReviewer) -> dict[str, Any]:
        users = _names(args.get("reviewers"), "reviewers", LOGIN, cfg.reviewers)
        teams = _names(args.get("team_reviewers"), "team_reviewers", TEAM, cfg.team_reviewers)
        if not users and not teams:
            raise FieldError("reviewers: name at least one reviewer or team_reviewers entry")
        record: dict[str, Any] = {"reviewers": users} if users else {}
        if teams:
            record["team_reviewers"] = teams
        return {**record, **targeted.item_fields(args, cfg, self.key, NUMBER)}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: AddReviewer, planning: Planning) -> PlannedItem:
        number = targeted.target_number(record, cfg, planning, self.key, NUMBER)
        teams = tuple(f"team:{t}" for t in record.get("team_reviewers", ()))
        return replace(item, number=number, reviewers=tuple(record.get("reviewers", ())) + teams)

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None
        number = item.number
        users = [r for r in item.reviewers if not r.startswith("team:")]
        teams = [r.removeprefix("team:") for r in item.reviewers if r.startswith("team:")]
        github.retry(lambda: github.request_reviewers(number, users, teams))
        return Applied("applied", github.item_url(number), number, {"reviewers": users, "team_reviewers": teams})


KIND = Kind()
