"""Apply planned items to GitHub with PyGithub, idempotently.

Before creating an issue, pull request or comment, the writer looks for one that already carries
the item's hidden marker (the newest ``LOOKBACK`` issues and pull requests of the repository, or
the target's comments) and was written by this job's own login (``identity.py``); found means
done. A marker someone else posted (a stranger can comment or open an issue first) is ignored
and the item is created. Lookup and create are retried together, so a create that succeeded but
answered 5xx is found on the next attempt instead of made twice. Adding labels is idempotent by
itself; a noop only reports its message.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from github import Github, GithubException, InputGitTreeElement
from github.Issue import Issue
from github.Repository import Repository

from aw_action.apply_outputs.context import ApplyContext
from aw_action.apply_outputs.github_api import RetryPolicy, with_retries
from aw_action.apply_outputs.identity import applying_login, authored_by
from aw_action.apply_outputs.patch_apply import apply_patch
from aw_action.apply_outputs.plan import PlannedItem
from aw_action.safe_outputs.patch import PatchError

LOOKBACK = 200
T = TypeVar("T")


class ApplyError(Exception):
    """A record that cannot be applied for a reason other than a GitHub error."""


@dataclass(frozen=True)
class Applied:
    """``status``: created, exists (found by its marker), applied (labels), noted (noop)."""

    status: str
    url: str | None = None
    number: int | None = None
    details: dict[str, Any] | None = None


class GitHubWriter:
    def __init__(
        self,
        gh: Github,
        ctx: ApplyContext,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.gh = gh
        self.repo: Repository = gh.get_repo(ctx.repository)  # lazy: the client is made lazy
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._login: list[str | None] = []

    @property
    def login(self) -> str | None:
        """This token's login, asked once (``identity.applying_login``)."""
        if not self._login:
            self._login.append(self.retry(lambda: applying_login(self.gh)))
        return self._login[0]

    def ours(self, item: Any, marker: str) -> bool:
        """``item`` carries ``marker`` and this job's login wrote it."""
        return marker in (getattr(item, "body", None) or "") and authored_by(item, self.login)

    def retry(self, call: Callable[[], T]) -> T:
        if self._sleep is None:
            return with_retries(call, self.policy)
        return with_retries(call, self.policy, sleep=self._sleep)

    def item_url(self, number: int) -> str:
        return f"{self.ctx.server_url}/{self.ctx.repository}/issues/{number}"

    def find_by_marker(self, marker: str) -> Issue | None:
        """The newest issue or pull request this job wrote whose body holds ``marker`` (PRs are
        issues here)."""
        listing = self.repo.get_issues(state="all", sort="created", direction="desc")
        for issue in itertools.islice(listing, LOOKBACK):
            if self.ours(issue, marker):
                return issue
        return None

    def apply(self, item: PlannedItem) -> Applied:
        handler = {
            "create_issue": self.create_issue,
            "add_comment": self.add_comment,
            "add_labels": self.add_labels,
            "create_pull_request": self.create_pull_request,
            "noop": self.noop,
        }[item.type]
        return handler(item)

    def create_issue(self, item: PlannedItem) -> Applied:
        def attempt() -> Applied:
            found = self.find_by_marker(item.marker)
            if found is not None:
                return Applied("exists", found.html_url, found.number)
            issue = self.repo.create_issue(title=item.title or "", body=item.body or "", labels=list(item.labels))
            return Applied("created", issue.html_url, issue.number)

        return self.retry(attempt)

    def add_comment(self, item: PlannedItem) -> Applied:
        assert item.number is not None
        issue = self.repo.get_issue(item.number)

        def attempt() -> Applied:
            for comment in issue.get_comments():
                if self.ours(comment, item.marker):
                    return Applied("exists", comment.html_url, item.number)
            comment = issue.create_comment(item.body or "")
            return Applied("created", comment.html_url, item.number)

        return self.retry(attempt)

    def add_labels(self, item: PlannedItem) -> Applied:
        assert item.number is not None
        issue = self.repo.get_issue(item.number)
        self.retry(lambda: issue.add_to_labels(*item.labels))
        return Applied("applied", self.item_url(item.number), item.number, {"labels": list(item.labels)})

    def noop(self, item: PlannedItem) -> Applied:
        return Applied("noted", details={"message": item.message})

    def create_pull_request(self, item: PlannedItem) -> Applied:
        found = self.retry(lambda: self.find_by_marker(item.marker))
        if found is not None:
            return Applied("exists", found.html_url, found.number)
        assert item.patch_file is not None and item.base_commit and item.head_branch
        base_branch = self.ctx.base_branch or self.retry(lambda: self.repo.default_branch)
        commit_sha = self._push_commit(item)
        self._point_branch(item.head_branch, commit_sha)
        pull = self.retry(lambda: self._open_pull(item, base_branch))
        if item.labels:
            self.retry(lambda: pull.add_to_labels(*item.labels))
        details = {"branch": item.head_branch, "base": base_branch, "commit": commit_sha}
        return Applied("created", pull.html_url, pull.number, details)

    def _push_commit(self, item: PlannedItem) -> str:
        """Blobs, a tree on the base commit's tree, and a commit whose parent is the base commit."""
        assert item.patch_file is not None and item.base_commit
        base_sha = item.base_commit
        try:
            base = self.retry(lambda: self.repo.get_git_commit(base_sha))
            tree = self.retry(lambda: self.repo.get_git_tree(base.tree.sha, recursive=True))
        except GithubException as exc:
            if exc.status in (404, 422):
                raise ApplyError(f"base commit {base_sha} is not in {self.ctx.repository}") from None
            raise
        if tree.raw_data.get("truncated"):
            raise ApplyError("the base tree is too large for the git data API (truncated listing)")
        entries = {e.path: (e.mode, e.sha) for e in tree.tree if e.type in ("blob", "commit")}  # not folders

        def blob(sha: str) -> bytes:
            return base64.b64decode(self.retry(lambda: self.repo.get_git_blob(sha)).content)

        try:
            changes = apply_patch(item.patch_file.read_bytes(), entries, blob)
        except PatchError as exc:
            raise ApplyError(str(exc)) from None
        if not changes:
            raise ApplyError("the patch changes nothing on the base commit")
        elements = []
        for change in changes:
            if change.content is None:
                elements.append(InputGitTreeElement(change.path, change.mode, "blob", sha=None))
                continue
            elements.append(InputGitTreeElement(change.path, change.mode, "blob", sha=self._upload(change.content)))
        new_tree = self.retry(lambda: self.repo.create_git_tree(elements, base_tree=tree))
        commit = self.retry(lambda: self.repo.create_git_commit(item.title or "Agent changes", new_tree, [base]))
        return str(commit.sha)

    def _upload(self, content: bytes) -> str:
        encoded = base64.b64encode(content).decode("ascii")
        return str(self.retry(lambda: self.repo.create_git_blob(encoded, "base64")).sha)

    def _point_branch(self, branch: str, sha: str) -> None:
        """Create the branch, or move it when an earlier attempt made it (it is this record's own)."""

        def attempt() -> None:
            try:
                self.repo.create_git_ref(f"refs/heads/{branch}", sha)
            except GithubException as exc:
                if exc.status != 422:
                    raise
                ref = self.repo.get_git_ref(f"heads/{branch}")
                _ = ref.object  # GET it first: PyGithub's lazy ref would PATCH /git/ref/..., GitHub wants /git/refs/...
                ref.edit(sha, force=True)

        self.retry(attempt)

    def _open_pull(self, item: PlannedItem, base_branch: str) -> Any:
        head = item.head_branch or ""
        try:
            return self.repo.create_pull(
                base=base_branch, head=head, title=item.title or "", body=item.body or "", draft=bool(item.draft)
            )
        except GithubException as exc:
            if exc.status != 422:
                raise
            owner = self.ctx.repository.split("/")[0]
            for pull in self.repo.get_pulls(state="all", head=f"{owner}:{head}"):
                return pull
            raise
