"""``hide_comment``: propose hiding (minimizing) a comment on an issue, pull request or
discussion, by its GraphQL node ID, with a reason (``SPAM`` by default; ``allowed-reasons``
limits them). Hiding exists only in GitHub's GraphQL API (``minimizeComment``).

Applied once, and only in the repository the config names: the apply job first asks for the
comment (``node(id:)``): one in another repository than ``target-repo`` (or the job's own) is
refused (a node ID is global, and the agent chose it); one already hidden is reported as
``exists`` and nothing is written; else one ``minimizeComment`` mutation. Nothing the agent wrote
is posted: the ID is checked to be a node ID and the reason is one of GitHub's classifiers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar, Literal

from pydantic import StrictInt

from aw_action.safe_outputs.fields import FieldError
from aw_action.safe_outputs.kinds import common, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import SafeOutputKind, Settings, max_field

REASONS = ("SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "RESOLVED", "LOW_QUALITY")
Reason = Literal["SPAM", "ABUSE", "OFF_TOPIC", "OUTDATED", "RESOLVED", "LOW_QUALITY"]
NODE_ID = re.compile(r"^[A-Za-z]{1,8}_[A-Za-z0-9_-]{4,96}$")
"""A GraphQL node ID (``IC_kwDOABCD123456``): a type prefix and base64url."""
KINDS = ("IssueComment", "PullRequestReviewComment", "DiscussionComment", "CommitComment")
COMMENT_QUERY = (
    "query($id: ID!) { node(id: $id) { __typename "
    + " ".join(f"... on {k} {{ isMinimized minimizedReason url repository {{ nameWithOwner }} }}" for k in KINDS)
    + " } }"
)
MINIMIZE = (
    "mutation($id: ID!, $classifier: ReportedContentClassifiers!) { "
    "minimizeComment(input: {subjectId: $id, classifier: $classifier}) { minimizedComment { isMinimized } } }"
)


class HideComment(targeted.RepoConfig):
    max: StrictInt = max_field(5)  # gh-aw's default
    allowed_reasons: tuple[Reason, ...] | None = None
    """The reasons the agent may give; absent = any of GitHub's."""

    def reasons(self) -> tuple[str, ...]:
        return self.allowed_reasons if self.allowed_reasons is not None else REASONS


class Kind(SafeOutputKind[HideComment]):
    name = "hide_comment"
    config_model: ClassVar[type[HideComment]] = HideComment
    fields = frozenset({"comment_id", "reason"})

    def tool(self, cfg: HideComment, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties: dict[str, Any] = {
            "comment_id": {"type": "string", "description": "GraphQL node ID of the comment (IC_kwDO...)"},
            "reason": {"type": "string", "enum": list(cfg.reasons()), "description": "Why it is hidden (default SPAM)"},
        }
        where = f" in {cfg.target_repo}" if cfg.target_repo else " in this repository"
        return common.join(
            f"Propose hiding a comment{where} on an issue, pull request or discussion (it is collapsed, not deleted).",
            common.LATER,
            common.per_run(cfg.max, "comment"),
        ), common.object_schema(properties, ["comment_id"])

    def validate(self, args: Mapping[str, Any], cfg: HideComment) -> dict[str, Any]:
        node = args.get("comment_id")
        if not isinstance(node, str) or not NODE_ID.match(node):
            raise FieldError("comment_id: must be a comment's GraphQL node ID (like IC_kwDOABCD123456)")
        reason = args.get("reason", "SPAM")
        reason = reason.strip().upper() if isinstance(reason, str) else reason
        if reason not in cfg.reasons():
            raise FieldError(f"reason: {reason!r} is not allowed (allowed: {', '.join(cfg.reasons())})")
        return {"comment_id": node, "reason": reason}

    def plan(self, item: PlannedItem, record: Mapping[str, Any], cfg: HideComment, planning: Planning) -> PlannedItem:
        return replace(item, node_id=record["comment_id"], event=record.get("reason", "SPAM"))

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.node_id is not None and item.event is not None
        node_id, reason = item.node_id, item.event
        data = github.retry(lambda: github.graphql(COMMENT_QUERY, {"id": node_id}))
        node = data.get("node")
        if not isinstance(node, Mapping) or node.get("__typename") not in KINDS:
            raise ApplyError(f"{node_id} is not a comment this job's token can see")
        where = str((node.get("repository") or {}).get("nameWithOwner", ""))
        if where.lower() != github.repository.lower():
            raise ApplyError(f"comment {node_id} is in {where or 'an unknown repository'}, not {github.repository}")
        url = str(node.get("url") or "") or None
        if node.get("isMinimized"):
            return Applied("exists", url, None, {"reason": node.get("minimizedReason")})
        github.retry(lambda: github.graphql(MINIMIZE, {"id": node_id, "classifier": reason}))
        return Applied("applied", url, None, {"reason": reason})


KIND = Kind()
