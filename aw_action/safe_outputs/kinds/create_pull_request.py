"""``create_pull_request``: propose the working tree's changes as a pull request.

Recording captures the changes as a ``git format-patch`` file beside the records
(``safe_outputs/patch.py``: git as the tools' user, in the sandbox, running nothing the
repository names); the record carries its name and base commit. The apply job checks the patch
(name, size, base), pushes it as a commit on the base commit to a branch of the record's own
(``aw-harness/<branch>-<hash>``) and opens the pull request, once: an existing one carrying the
record's marker is found first.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import StrictBool, StrictInt

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common, patched, titled
from aw_action.safe_outputs.kinds.apply_api import Applied, Attachment, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import Recording, SafeOutputKind, Settings, max_field

BRANCH_PREFIX = "aw-harness/"


class CreatePullRequest(titled.TitledConfig):
    draft: StrictBool = True
    max: StrictInt = max_field(1)


def _slug(text: str) -> str:
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9]+", "-", text.lower())).strip("-")[:40] or "change"


BRANCH_SUFFIX_CHARS = 16
"""Hex characters of ``head_branch``'s suffix: 64 bits, past any search an agent could run for a
record whose branch is one that exists already."""


def head_branch(record: Mapping[str, Any], marker: str) -> str:
    """Always under ``aw-harness/`` and ending in a hash of the item's marker (this run and this
    record): the branch is this run's item's own, so the apply job may move it, and the agent can
    never name ``main``. It was the record's hash alone, so another run applying the same record
    (or one made to match 32 bits of an earlier one) found an earlier run's branch, force-moved it
    over what a maintainer had pushed and took its pull request as its own (found by review)."""
    name = str(record.get("branch") or "change").removeprefix(BRANCH_PREFIX)
    digest = hashlib.sha256(marker.encode("utf-8")).hexdigest()
    return f"{BRANCH_PREFIX}{name[:80].rstrip('/.')}-{digest[:BRANCH_SUFFIX_CHARS]}"


class Kind(SafeOutputKind[CreatePullRequest]):
    name = "create_pull_request"
    config_model: ClassVar[type[CreatePullRequest]] = CreatePullRequest
    fields = titled.FIELDS | {"branch", "draft"}
    system_fields = patched.SYSTEM_FIELDS

    def tool(self, cfg: CreatePullRequest, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties = {
            "title": common.TITLE,
            "body": common.BODY,
            "branch": {
                "type": "string",
                "description": "Name for the new branch (optional; one is made up from the title)",
            },
            "labels": common.LABELS,
            "draft": {"type": "boolean", "description": f"Open as a draft (default: {str(cfg.draft).lower()})"},
        }
        return common.join(
            "Propose a pull request with your changes to the files in the working tree (committed or not; "
            "files .gitignore excludes are left out). Make the edits first, then call this once.",
            common.LATER,
            common.per_run(cfg.max, "pull request"),
            f"The patch may be at most {settings.max_patch_size:,} KiB.",
            titled.prefix_note(cfg.title_prefix),
            titled.labels_note(cfg),
        ), common.object_schema(properties, ["title", "body"])

    def validate(self, args: Mapping[str, Any], cfg: CreatePullRequest) -> dict[str, Any]:
        record = titled.validate(args, cfg)
        if args.get("branch") is not None:
            record["branch"] = fields.branch(args["branch"], "branch")
        if args.get("draft") is not None:
            record["draft"] = fields.boolean(args["draft"], "draft")
        return record

    def recorded(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return patched.recorded(record, self.name)

    def capture(self, record: dict[str, Any], cfg: CreatePullRequest, recording: Recording) -> dict[str, Any]:
        """Write the patch beside the records (``patched.capture``) and name it in the record."""
        given = record.get("branch")
        branch = given or f"{BRANCH_PREFIX}{_slug(record['title'])}-{secrets.token_hex(3)}"
        return patched.capture(record, recording, self.name, branch, bool(given), record["title"])

    def attachment(self, record: Mapping[str, Any], records_dir: Path, settings: Settings) -> Attachment:
        return patched.attachment(record, records_dir, settings)

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: CreatePullRequest, planning: Planning
    ) -> PlannedItem:
        assert planning.attachment is not None, "attachment() read the patch"
        return replace(
            titled.plan(item, record, cfg, planning),
            draft=record.get("draft", cfg.draft),
            head_branch=head_branch(record, item.marker),
            base_commit=record["base_commit"],
            patch_file=planning.attachment.path,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        found = github.retry(lambda: github.find_item(item.marker))
        if found is not None:
            return Applied("exists", found.url, found.number)
        assert item.patch_file is not None and item.base_commit and item.head_branch
        head = item.head_branch
        base = github.base_branch()
        sha = github.push_patch(item.base_commit, item.patch_file.read_bytes(), item.title or "Agent changes")
        github.point_branch(head, sha)
        pull = github.retry(lambda: github.open_pull(base, head, item.title or "", item.body or "", bool(item.draft)))
        if item.labels:
            github.retry(lambda: github.label(pull.number, item.labels))
        return Applied("created", pull.url, pull.number, {"branch": head, "base": base, "commit": sha})


KIND = Kind()
