"""``push_to_pull_request_branch``: propose the working tree's changes as a new commit on an open
pull request's branch (``target``), in this repository only.

Recording captures the patch as a new pull request's is (``patched.py``), on the commit the
agent checked out (the pull request's head). The apply job, before any write: the item must be
an open pull request (not an issue) carrying the config's ``labels`` and ``title-prefix``; its
branch must be in this repository (a fork's branch is never pushed to: the token's reach ends at
this repository, and a fork's owner did not ask for it); and its head must still be the commit
the patch was made on (else it moved: run again). Then one commit on that head with the patch
applied (the git data API, as for a new pull request) and the branch moved to it without force,
so GitHub refuses anything but a fast-forward. The commit message is the agent's, made safe as a
title is, ending in the record's marker: a re-apply finds the head carrying it and writes
nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from pydantic import StrictInt, StrictStr, field_validator, model_validator

from aw_action.safe_outputs import fields
from aw_action.safe_outputs.kinds import common, patched, targeted
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, Attachment, GitHub, PlannedItem, Planning
from aw_action.safe_outputs.kinds.base import Recording, SafeOutputKind, Settings, max_field

NUMBER = "pull_request_number"
MESSAGE_MAX_CHARS = 10_000


class PushToPullRequestBranch(targeted.TargetedConfig):
    title_prefix: StrictStr = ""
    """A prefix the pull request's title must have to be pushed to."""
    labels: tuple[StrictStr, ...] = ()
    """Labels the pull request must all carry to be pushed to."""
    max: StrictInt = max_field(1)

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return common.label_names(value) or ()

    @model_validator(mode="after")
    def _same_repository(self) -> PushToPullRequestBranch:
        if self.target_repo is not None:
            raise ValueError("target-repo is not supported: only a branch of this repository is pushed to")
        return self


class Kind(SafeOutputKind[PushToPullRequestBranch]):
    name = "push_to_pull_request_branch"
    config_model: ClassVar[type[PushToPullRequestBranch]] = PushToPullRequestBranch
    fields = frozenset({"message", "branch", NUMBER})
    system_fields = patched.SYSTEM_FIELDS

    def tool(self, cfg: PushToPullRequestBranch, settings: Settings) -> tuple[str, dict[str, Any]]:
        properties: dict[str, Any] = {
            "message": common.string("Commit message", MESSAGE_MAX_CHARS),
            "branch": {"type": "string", "description": "Your local branch name (optional; names the patch file)"},
            NUMBER: targeted.item_schema(cfg, ["number", "string"]),
        }
        needs = [f'its title starts with "{cfg.title_prefix}"' if cfg.title_prefix else ""]
        needs.append(f"it carries the labels {', '.join(cfg.labels)}" if cfg.labels else "")
        condition = " and ".join(n for n in needs if n)
        return common.join(
            "Propose your changes to the working tree (committed or not) as one new commit on an open pull "
            "request's branch in this repository (not a fork's). Make the edits on the pull request's head first.",
            targeted.target_note(cfg, NUMBER),
            f"Only when {condition}." if condition else "",
            common.LATER,
            common.per_run(cfg.max, "push"),
            f"The patch may be at most {settings.max_patch_size:,} KiB.",
        ), common.object_schema(properties, ["message", *targeted.required(cfg, NUMBER)])

    def validate(self, args: Mapping[str, Any], cfg: PushToPullRequestBranch) -> dict[str, Any]:
        record: dict[str, Any] = {"message": fields.text(args.get("message"), "message", max_chars=MESSAGE_MAX_CHARS)}
        if args.get("branch") is not None:
            record["branch"] = fields.branch(args["branch"], "branch")
        return {**record, **targeted.item_fields(args, cfg, self.key, NUMBER)}

    def recorded(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return patched.recorded(record, self.name)

    def capture(self, record: dict[str, Any], cfg: PushToPullRequestBranch, recording: Recording) -> dict[str, Any]:
        given = record.get("branch")
        branch = given or "push-to-pull-request"
        return patched.capture(record, recording, self.name, branch, bool(given), record["message"])

    def attachment(self, record: Mapping[str, Any], records_dir: Path, settings: Settings) -> Attachment:
        return patched.attachment(record, records_dir, settings)

    def plan(
        self, item: PlannedItem, record: Mapping[str, Any], cfg: PushToPullRequestBranch, planning: Planning
    ) -> PlannedItem:
        assert planning.attachment is not None, "attachment() read the patch"
        first, _, rest = str(record["message"]).strip().partition("\n")
        parts = [planning.title(first, ""), planning.text(rest.strip(), MESSAGE_MAX_CHARS) if rest.strip() else ""]
        return replace(
            item,
            number=targeted.target_number(record, cfg, planning, self.key, NUMBER),
            message="\n\n".join(p for p in [*parts, item.marker] if p),
            base_commit=record["base_commit"],
            patch_file=planning.attachment.path,
            required_labels=cfg.labels,
            required_title_prefix=cfg.title_prefix or None,
        )

    def apply(self, item: PlannedItem, github: GitHub) -> Applied:
        assert item.number is not None and item.patch_file is not None and item.base_commit and item.message
        number = item.number
        state = github.retry(lambda: github.issue(number))
        _check(item, state.is_pull, state.state, state.title, state.labels)
        pull = github.retry(lambda: github.pull_request(None, number))
        if pull.head_repo is None or pull.head_repo.lower() != github.repository.lower():
            raise ApplyError(
                f"#{number}'s branch is in {pull.head_repo or 'a deleted repository'}, not {github.repository}: "
                "only a branch of this repository is pushed to"
            )
        url = github.item_url(number)
        if pull.head_sha != item.base_commit:
            head = pull.head_sha
            if item.marker in github.retry(lambda: github.commit_message(head)):
                return Applied("exists", url, number, {"branch": pull.head_ref, "commit": head})
            raise ApplyError(
                f"the head of #{number} moved from {item.base_commit[:12]} (the commit the change was made on) to "
                f"{head[:12]} before apply; nothing was pushed: run again on the new head"
            )
        assert pull.head_ref is not None
        branch = pull.head_ref
        sha = github.push_patch(item.base_commit, item.patch_file.read_bytes(), item.message)
        github.retry(lambda: github.advance_branch(branch, sha))
        return Applied("applied", url, number, {"branch": branch, "commit": sha})


def _check(item: PlannedItem, is_pull: bool, state: str, title: str, labels: tuple[str, ...]) -> None:
    where = f"#{item.number}"
    if not is_pull:
        raise ApplyError(f"{where} is an issue, not a pull request")
    if state != "open":
        raise ApplyError(f"{where} is {state}; only an open pull request's branch is pushed to")
    have = {label.lower() for label in labels}
    missing = [label for label in item.required_labels if label.lower() not in have]
    if missing:
        raise ApplyError(f"{where} lacks the required label(s) {', '.join(missing)}; nothing was pushed")
    if item.required_title_prefix and not title.startswith(item.required_title_prefix):
        raise ApplyError(f"{where}'s title does not start with the required prefix {item.required_title_prefix!r}")


KIND = Kind()
