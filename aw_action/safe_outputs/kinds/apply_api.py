"""What a kind plans and applies with: the item, and the two interfaces the apply layer passes in.

``Planning`` is the apply job's view of a record being planned (the event's target, its
sanitiser); ``GitHub`` is the GitHub operations a kind needs, which ``apply_outputs/`` implements
with PyGithub. The generic parts stay there: the retry policy, the marker lookup and its author
check (only items this job's own login wrote count), sanitising, the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from aw_action.lazy_dataclass import dataclass
from aw_action.safe_outputs.kinds.review_diff import FileDiff, ReviewComment

T = TypeVar("T")


class ApplyError(Exception):
    """A record that cannot be applied for a reason other than a GitHub error."""


@dataclass(frozen=True)
class Attachment:
    """A file beside the records that a record names (a pull request's patch), as read."""

    path: Path
    data: bytes


@dataclass(frozen=True)
class PlannedItem:
    """The exact item the apply job would create: ``--dry-run`` prints it (``to_json``)."""

    line: int
    type: str
    record_hash: str
    marker: str
    title: str | None = None
    body: str | None = None
    labels: tuple[str, ...] = ()
    number: int | None = None
    draft: bool | None = None
    head_branch: str | None = None
    base_commit: str | None = None
    patch_file: Path | None = field(default=None, compare=False)
    message: str | None = None
    repository: str | None = None
    """``target-repo``: where the item goes; None = the job's repository."""
    commit_id: str | None = None
    """The commit a review was made on (the pull request's head the agent saw)."""
    event: str | None = None
    """A review's event: COMMENT, APPROVE or REQUEST_CHANGES."""
    comment: ReviewComment | None = None
    """A review comment's place and text (it goes out inside its review)."""
    review_line: int | None = None
    """A review comment: the line of the review it goes out in."""
    comments: tuple[ReviewComment, ...] = ()
    """A review: the comments it gathered, in file order."""
    state: str | None = None
    """The state an update sets: open or closed."""
    operation: str | None = None
    """How an update's body meets the item's: append, prepend or replace."""
    reviewers: tuple[str, ...] = ()
    """Users, and teams as ``team:<slug>``, to request a review from."""
    required_labels: tuple[str, ...] = ()
    """Labels the target must carry for the item to apply (a close filter)."""
    required_title_prefix: str | None = None
    """A prefix the target's title must have for the item to apply."""
    node_id: str | None = None
    """A GraphQL node the item acts on (a comment to hide)."""
    category: str | None = None
    """A discussion's category: name, slug or node ID; None = the repository's first."""

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if v is not None and k != "patch_file"}
        data["labels"] = list(self.labels)
        for name in ("comments", "required_labels", "reviewers"):
            if not data.get(name):
                data.pop(name, None)
        if self.patch_file is not None:
            data["patch_file"] = self.patch_file.name
        return {"status": "planned", **data}


@dataclass(frozen=True)
class Applied:
    """``status``: created, exists (found by its marker), applied (labels), noted (nothing to write)."""

    status: str
    url: str | None = None
    number: int | None = None
    details: dict[str, Any] | None = None


@dataclass(frozen=True)
class PullState:
    """A pull request as the apply job finds it: its head, its author and its diff by path."""

    number: int
    head_sha: str
    author: str | None
    files: Mapping[str, FileDiff]
    head_ref: str | None = None
    """The head branch's name."""
    head_repo: str | None = None
    """``owner/name`` of the head branch's repository (a fork's for a fork's pull request; None: deleted)."""


@dataclass(frozen=True)
class IssueState:
    """An issue or pull request as the apply job finds it."""

    number: int
    title: str
    state: str
    labels: tuple[str, ...]
    is_pull: bool
    body: str = ""


@dataclass(frozen=True)
class Posted:
    """An issue, pull request or comment on GitHub: its page and its issue or pull request number."""

    url: str
    number: int


class Planning(Protocol):
    """The apply job's side of planning one record."""

    @property
    def attachment(self) -> Attachment | None:
        """What the kind's ``attachment`` read (counted in ``item.record_hash``)."""
        ...

    def triggering_number(self) -> int | None:
        """The issue or pull request the event is about, if any."""
        ...

    @property
    def footer(self) -> str:
        """The visible footer line (which run made this), without the marker."""
        ...

    @property
    def previewing(self) -> bool:
        """A dry run with no event: the plan is shown, a missing triggering target is not an error."""
        ...

    @property
    def untrusted(self) -> str | None:
        """Why the records come from a run a fork's code could control (``apply_outputs/origin.py``),
        or None: from such records no kind applies what only a trusted run may (an approval)."""
        ...

    def title(self, text: str, prefix: str) -> str:
        """A title made safe to post and to use as a commit message (``public_text.sanitize_title``),
        the prefix added once."""
        ...

    def text(self, text: str, max_chars: int) -> str:
        """Agent Markdown made safe to post (``public_text.sanitize_body``: mentions, closing
        keywords, links, headings, fences, tags), at most ``max_chars``."""
        ...


class GitHub(Protocol):
    """The GitHub operations a kind applies with. The single calls are not retried: a kind wraps
    them in ``retry`` as its idempotency needs (a lookup and the create it guards retried
    together, so a create that succeeded but answered 5xx is found, not made twice). The
    composite ones (``base_branch``, ``push_patch``, ``point_branch``) retry each call they make."""

    def retry(self, call: Callable[[], T]) -> T: ...

    @property
    def login(self) -> str | None:
        """The login this job writes as (None when GitHub does not say)."""
        ...

    @property
    def repository(self) -> str:
        """``owner/name`` this view of GitHub writes to (``target-repo``, else the job's)."""
        ...

    def graphql(self, query: str, variables: Mapping[str, Any]) -> Mapping[str, Any]:
        """One GraphQL request; its ``data`` (the client's error when GitHub answers errors)."""
        ...

    def pull_request(self, repository: str | None, number: int) -> PullState:
        """The pull request and its files (asked once per run); ``ApplyError`` naming the
        repository when the token cannot read it. ``repository`` None = the job's own."""
        ...

    def find_review(self, repository: str | None, number: int, marker: str) -> Posted | None:
        """A review on ``number`` this job's login submitted whose body holds ``marker``."""
        ...

    def submit_review(
        self,
        repository: str | None,
        number: int,
        commit_id: str,
        body: str,
        event: str,
        comments: Sequence[Mapping[str, Any]],
    ) -> Posted:
        """One ``POST /pulls/{n}/reviews`` with every comment and the event; ``ApplyError``
        naming the setting or the reason when GitHub refuses an approval."""
        ...

    def find_item(self, marker: str) -> Posted | None:
        """The newest issue or pull request this job's login wrote whose body holds ``marker``."""
        ...

    def find_comment(self, number: int, marker: str) -> Posted | None:
        """A comment on ``number`` this job's login wrote whose body holds ``marker``."""
        ...

    def open_issue(self, title: str, body: str, labels: Sequence[str]) -> Posted: ...

    def post_comment(self, number: int, body: str) -> Posted: ...

    def label(self, number: int, labels: Sequence[str]) -> None:
        """Add labels to an issue or pull request (idempotent by itself)."""
        ...

    def issue(self, number: int) -> IssueState:
        """The issue or pull request ``number`` now (asked anew each call)."""
        ...

    def close(self, number: int, pull: bool) -> None:
        """Close the issue (state reason ``completed``) or the pull request (unmerged)."""
        ...

    def request_reviewers(self, number: int, users: Sequence[str], teams: Sequence[str]) -> None:
        """Request reviews on pull request ``number`` (idempotent by itself)."""
        ...

    def edit_issue(self, number: int, changes: Mapping[str, str]) -> None:
        """One ``PATCH /issues/{n}`` with ``changes`` (title, body, state)."""
        ...

    def unlabel(self, number: int, labels: Sequence[str]) -> list[str]:
        """Remove labels from an issue or pull request; the ones it carried (the others are skipped)."""
        ...

    def item_url(self, number: int) -> str: ...

    def base_branch(self) -> str:
        """The branch a pull request goes to: the event's base or pushed branch, else the default."""
        ...

    def push_patch(self, base_commit: str, patch: bytes, message: str) -> str:
        """A commit on ``base_commit`` with ``patch`` applied (``ApplyError`` when it does not
        apply); its sha."""
        ...

    def point_branch(self, branch: str, sha: str) -> None:
        """Create ``branch`` at ``sha``, or move it there when an earlier attempt made it."""
        ...

    def commit_message(self, sha: str) -> str:
        """The message of commit ``sha``."""
        ...

    def advance_branch(self, branch: str, sha: str) -> None:
        """Move ``branch`` to ``sha`` without force (GitHub refuses what is not a fast-forward)."""
        ...

    def open_pull(self, base: str, head: str, title: str, body: str, draft: bool) -> Posted:
        """Open the pull request, or find the one an earlier attempt opened for ``head``."""
        ...
