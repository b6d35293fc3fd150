"""What a kind plans and applies with: the item, and the two interfaces the apply layer passes in.

``Planning`` is the apply job's view of a record being planned (the event's target, its
sanitiser); ``GitHub`` is the GitHub operations a kind needs, which ``apply_outputs/`` implements
with PyGithub. The generic parts stay there: the retry policy, the marker lookup and its author
check (only items this job's own login wrote count), sanitising, the report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

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

    def to_json(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if v is not None and k != "patch_file"}
        data["labels"] = list(self.labels)
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
    def previewing(self) -> bool:
        """A dry run with no event: the plan is shown, a missing triggering target is not an error."""
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

    def open_pull(self, base: str, head: str, title: str, body: str, draft: bool) -> Posted:
        """Open the pull request, or find the one an earlier attempt opened for ``head``."""
        ...
