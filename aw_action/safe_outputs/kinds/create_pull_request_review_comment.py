"""``create_pull_request_review_comment``: propose a comment on lines of a pull request's diff.

It is not posted alone: it goes out inside the run's review of that pull request
(``pull_review.py``; the review kind gathers it). When recorded, the fields are checked
(a relative path, ``line`` and ``start_line`` positive with ``start_line <= line``, ``side``
LEFT or RIGHT) and the reviewed commit is named. When applied, the line is checked against the
pull request's diff as GitHub's API reports it (``review_diff.py``): a comment off the diff is
refused with the reason and the lines it could take; the others still go out in the review.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar, Literal

from pydantic import StrictInt

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import common, pull_review, review_diff, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import Recording, SafeOutputKind, Settings, max_field

PATH_MAX_CHARS = 1024
NUMBER = "pull_request_number"


class CreatePullRequestReviewComment(targeted.TargetRepoConfig):
    max: StrictInt = max_field(10)  # gh-aw's compiler default
    side: Literal["LEFT", "RIGHT"] = "RIGHT"
    """The side a comment goes on when the agent names none."""


def _path(value: Any) -> str:
    path = fields.text(value, "path", max_chars=PATH_MAX_CHARS, single_line=True).removeprefix("./")
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        raise FieldError(f"path: {path!r} must be a file path relative to the repository root (no '..', no '/' first)")
    return path


def _line(value: Any, field: str) -> int:
    try:
        return fields.item_number(value, field)
    except FieldError:
        raise FieldError(f"{field}: must be a positive line number, got {value!r}") from None


class Kind(SafeOutputKind[CreatePullRequestReviewComment]):
    name = "create_pull_request_review_comment"
    config_model: ClassVar[type[CreatePullRequestReviewComment]] = CreatePullRequestReviewComment
    fields = frozenset({"path", "line", "start_line", "side", "body", NUMBER})
    system_fields = frozenset({pull_review.COMMIT_FIELD})

    def tool(self, cfg: CreatePullRequestReviewComment, settings: Settings) -> tuple[str, dict[str, Any]]:
        line = {"type": ["number", "string"], "description": "Line number in the file (the last line of a range)"}
        properties: dict[str, Any] = {
            "path": {
                "type": "string",
                "description": "File path relative to the repository root (new path if renamed)",
            },
            "line": line,
            "start_line": {"type": ["number", "string"], "description": "First line of a range (same hunk)"},
            "side": {
                "type": "string",
                "enum": ["LEFT", "RIGHT"],
                "description": f"RIGHT: new version (added, unchanged lines); LEFT: removed lines. Default {cfg.side}",
            },
            "body": common.BODY,
            NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        return common.join(
            "Propose a review comment on lines of a pull request's diff. The line must be in the diff GitHub "
            "shows for the pull request (an added, removed or unchanged line of a hunk); all comments go out "
            "in one review, with the event of the review you submit, if you submit one.",
            targeted.target_note(cfg, NUMBER),
            common.LATER,
            common.per_run(cfg.max, "comment"),
        ), common.object_schema(properties, ["path", "line", "body", *targeted.required(cfg, NUMBER)])

    def validate(self, args: Mapping[str, Any], cfg: CreatePullRequestReviewComment) -> dict[str, Any]:
        record: dict[str, Any] = {"path": _path(args.get("path")), "line": _line(args.get("line"), "line")}
        if args.get("start_line") is not None:
            start = _line(args["start_line"], "start_line")
            if start > record["line"]:
                raise FieldError(f"start_line: {start} is after line {record['line']}; start_line <= line")
            record["start_line"] = start
        if args.get("side") is not None:
            side = str(args["side"]).strip().upper()
            if side not in review_diff.SIDES:
                raise FieldError(f"side: must be LEFT or RIGHT, got {args['side']!r}")
            record["side"] = side
        record["body"] = common.body(args)
        return {**record, **targeted.item_fields(args, cfg, self.key, NUMBER)}

    def recorded(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return pull_review.recorded_commit(record)

    def capture(
        self, record: dict[str, Any], cfg: CreatePullRequestReviewComment, recording: Recording
    ) -> dict[str, Any]:
        return pull_review.capture_commit(record, recording.runner)

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: CreatePullRequestReviewComment, planning: Planning
    ) -> PlannedItem:
        body = planning.text(record["body"], fields.BODY_MAX_CHARS)  # no footer: the review carries it
        comment = review_diff.ReviewComment(
            item.line, record["path"], record["line"], record.get("side", cfg.side), body, record.get("start_line")
        )
        number = targeted.target_number(record, cfg, planning, self.key, NUMBER)
        return replace(
            item,
            body=body,
            number=number,
            repository=cfg.target_repo,
            commit_id=record.get(pull_review.COMMIT_FIELD),
            comment=comment,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        """Check the line against the diff; the review (``review_line``) posts it."""
        assert item.comment is not None
        pull = pull_review.current(item, github)
        reason = review_diff.check(pull.files, item.comment)
        if reason is not None:
            raise ApplyError(f"refused, not posted: {reason}")
        return Applied("in-review", None, item.number, {"review_line": item.review_line})


KIND = Kind()
