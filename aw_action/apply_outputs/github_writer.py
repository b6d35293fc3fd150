"""PyGithub behind the kinds' ``GitHub`` interface (``safe_outputs/kinds/apply_api.py``), and
``apply_item``, which hands a planned item to its kind.

The generic parts of applying live here: every call under the one retry policy
(``github_api.py``), and the idempotency lookup's author check: an item carrying a record's
marker counts as done only when this job's own login wrote it (``identity.py``); a marker
someone else posted (a stranger can comment or open an issue first) is ignored and the item is
created. Lookups look at the newest ``LOOKBACK`` issues and pull requests, or at the target's
comments. A pull request's patch is applied to the base commit's files (``patch_apply.py``) and
pushed with the git data API.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar, cast

from github import Github, GithubException, InputGitTreeElement
from github.GithubObject import NotSet
from github.Issue import Issue
from github.PullRequest import PullRequest, ReviewComment
from github.Repository import Repository

from aw_action.apply_outputs import reach
from aw_action.apply_outputs.context import ApplyContext
from aw_action.apply_outputs.github_api import RetryPolicy, describe, with_retries
from aw_action.apply_outputs.identity import applying_login, authored_by
from aw_action.apply_outputs.patch_apply import apply_patch
from aw_action.apply_outputs.review_errors import reach_error, review_error
from aw_action.safe_outputs.kinds import BY_TYPE
from aw_action.safe_outputs.kinds.apply_api import Applied, ApplyError, IssueState, PlannedItem, Posted, PullState
from aw_action.safe_outputs.kinds.review_diff import FileDiff, parse_patch
from aw_action.safe_outputs.patch import PatchError

LOOKBACK = 200
T = TypeVar("T")


def apply_item(item: PlannedItem, github: GitHubWriter) -> Applied:
    """Apply ``item`` as its kind does (``kinds/<type>.apply``), in the repository it names
    (``target-repo``): there only once the token is seen to reach it (``reach.py``)."""
    kind = BY_TYPE[item.type]
    writer = github.at(item.repository)
    if writer is github:
        return kind.apply(item, github)
    name = writer.ctx.repository
    reach.check(writer.reached, kind.key, name)
    try:
        return kind.apply(item, writer)
    except GithubException as exc:
        raise reach.refused(exc, kind.key, name) from None


class GitHubWriter:
    """``kinds.apply_api.GitHub`` for ``ctx.repository`` with PyGithub."""

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
        self._issues: dict[int, Issue] = {}
        self._pulls: dict[tuple[str, int], tuple[PullRequest, PullState]] = {}
        self._others: dict[str, GitHubWriter] = {}
        self._reached: list[bool] = []

    def at(self, repository: str | None) -> GitHubWriter:
        """This writer for ``repository`` (``target-repo``; the same login, client and retry
        policy); itself for None or its own repository."""
        if repository is None or repository.lower() == self.ctx.repository.lower():
            return self
        key = repository.lower()
        if key not in self._others:
            ctx = replace(self.ctx, repository=repository, base_branch=None)
            other = GitHubWriter(self.gh, ctx, self.policy, self._sleep)
            other._login = self._login
            self._others[key] = other
        return self._others[key]

    def reached(self) -> None:
        """Read the repository once (``GET /repos/{o}/{r}``); the client's error when it cannot."""
        if not self._reached:
            self.retry(lambda: self.repo.id)  # the lazy repository completes itself: one GET
            self._reached.append(True)

    @property
    def login(self) -> str | None:
        """This token's login, asked once (``identity.applying_login``)."""
        if not self._login:
            self._login.append(self.retry(lambda: applying_login(self.gh)))
        return self._login[0]

    @property
    def repository(self) -> str:
        return self.ctx.repository

    def graphql(self, query: str, variables: Mapping[str, Any]) -> Mapping[str, Any]:
        _, answer = self.gh.requester.graphql_query(query, dict(variables))
        data = answer.get("data")
        return data if isinstance(data, Mapping) else {}

    def ours(self, item: Any, marker: str) -> bool:
        """``item`` carries ``marker`` and this job's login wrote it."""
        return marker in (getattr(item, "body", None) or "") and authored_by(item, self.login)

    def retry(self, call: Callable[[], T]) -> T:
        if self._sleep is None:
            return with_retries(call, self.policy)
        return with_retries(call, self.policy, sleep=self._sleep)

    def _issue(self, number: int) -> Issue:
        """The issue or pull request ``number`` (lazy: no request until it is used)."""
        if number not in self._issues:
            self._issues[number] = self.repo.get_issue(number)
        return self._issues[number]

    def item_url(self, number: int) -> str:
        return f"{self.ctx.server_url}/{self.ctx.repository}/issues/{number}"

    def find_item(self, marker: str) -> Posted | None:
        listing = self.repo.get_issues(state="all", sort="created", direction="desc")
        for issue in itertools.islice(listing, LOOKBACK):
            if self.ours(issue, marker):
                return Posted(issue.html_url, issue.number)
        return None

    def find_comment(self, number: int, marker: str) -> Posted | None:
        for comment in self._issue(number).get_comments():
            if self.ours(comment, marker):
                return Posted(comment.html_url, number)
        return None

    def open_issue(self, title: str, body: str, labels: Sequence[str]) -> Posted:
        issue = self.repo.create_issue(title=title, body=body, labels=list(labels))
        return Posted(issue.html_url, issue.number)

    def post_comment(self, number: int, body: str) -> Posted:
        return Posted(self._issue(number).create_comment(body).html_url, number)

    def label(self, number: int, labels: Sequence[str]) -> None:
        self._issue(number).add_to_labels(*labels)

    def issue(self, number: int) -> IssueState:
        data = self.repo.get_issue(number)  # a fresh object: the state as GitHub has it now
        labels = tuple(label.name for label in data.labels)
        return IssueState(number, data.title, data.state, labels, data.pull_request is not None, data.body or "")

    def edit_issue(self, number: int, changes: Mapping[str, str]) -> None:
        self._issue(number).edit(
            title=changes.get("title", NotSet), body=changes.get("body", NotSet), state=changes.get("state", NotSet)
        )

    def close(self, number: int, pull: bool) -> None:
        if pull:
            self.repo.get_pull(number).edit(state="closed")
        else:
            self._issue(number).edit(state="closed", state_reason="completed")

    def request_reviewers(self, number: int, users: Sequence[str], teams: Sequence[str]) -> None:
        self.repo.get_pull(number).create_review_request(reviewers=list(users), team_reviewers=list(teams))

    def unlabel(self, number: int, labels: Sequence[str]) -> list[str]:
        removed = []
        for name in labels:
            try:
                self._issue(number).remove_from_labels(name)
            except GithubException as exc:
                if exc.status != 404:  # not on the item: nothing to remove
                    raise
                continue
            removed.append(name)
        return removed

    def base_branch(self) -> str:
        return self.ctx.base_branch or self.retry(lambda: self.repo.default_branch)

    def push_patch(self, base_commit: str, patch: bytes, message: str) -> str:
        """Blobs, a tree on the base commit's tree, and a commit whose parent is the base commit."""
        try:
            base = self.retry(lambda: self.repo.get_git_commit(base_commit))
            tree = self.retry(lambda: self.repo.get_git_tree(base.tree.sha, recursive=True))
        except GithubException as exc:
            if exc.status in (404, 422):
                raise ApplyError(f"base commit {base_commit} is not in {self.ctx.repository}") from None
            raise
        if tree.raw_data.get("truncated"):
            raise ApplyError("the base tree is too large for the git data API (truncated listing)")
        entries = {e.path: (e.mode, e.sha) for e in tree.tree if e.type in ("blob", "commit")}  # not folders

        def blob(sha: str) -> bytes:
            return base64.b64decode(self.retry(lambda: self.repo.get_git_blob(sha)).content)

        try:
            changes = apply_patch(patch, entries, blob)
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
        commit = self.retry(lambda: self.repo.create_git_commit(message, new_tree, [base]))
        return str(commit.sha)

    def _upload(self, content: bytes) -> str:
        encoded = base64.b64encode(content).decode("ascii")
        return str(self.retry(lambda: self.repo.create_git_blob(encoded, "base64")).sha)

    def point_branch(self, branch: str, sha: str) -> None:
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

    def commit_message(self, sha: str) -> str:
        return str(self.repo.get_git_commit(sha).message)

    def advance_branch(self, branch: str, sha: str) -> None:
        ref = self.repo.get_git_ref(f"heads/{branch}")
        _ = ref.object  # GET it first: PyGithub's lazy ref would PATCH /git/ref/..., GitHub wants /git/refs/...
        try:
            ref.edit(sha, force=False)
        except GithubException as exc:
            if exc.status == 422:
                raise ApplyError(f"{branch} was not moved: {describe(exc)} (someone pushed meanwhile)") from None
            raise

    def open_pull(self, base: str, head: str, title: str, body: str, draft: bool) -> Posted:
        try:
            pull = self.repo.create_pull(base=base, head=head, title=title, body=body, draft=draft)
        except GithubException as exc:
            if exc.status != 422:
                raise
            owner = self.ctx.repository.split("/")[0]
            for found in self.repo.get_pulls(state="all", head=f"{owner}:{head}"):
                return Posted(found.html_url, found.number)
            raise
        return Posted(pull.html_url, pull.number)

    # -- pull request reviews (``review_errors.py`` words GitHub's refusals)

    def _repository(self, name: str | None) -> tuple[str, Repository]:
        if name is None or name.lower() == self.ctx.repository.lower():
            return self.ctx.repository, self.repo
        return name, self.gh.get_repo(name)

    def pull_request(self, repository: str | None, number: int) -> PullState:
        name, repo = self._repository(repository)
        if (name, number) not in self._pulls:
            try:
                pull = repo.get_pull(number)
                files = {
                    f.filename: FileDiff(
                        f.filename, f.status, f.previous_filename, parse_patch(f.patch) if f.patch else None
                    )
                    for f in pull.get_files()
                }
                head_repo = pull.head.repo.full_name if pull.head.repo else None
                author = pull.user.login if pull.user else None
                state = PullState(number, pull.head.sha, author, files, pull.head.ref, head_repo)
            except GithubException as exc:
                raise reach_error(exc, name, number) from None
            self._pulls[(name, number)] = (pull, state)
        return self._pulls[(name, number)][1]

    def find_review(self, repository: str | None, number: int, marker: str) -> Posted | None:
        name, _ = self._repository(repository)
        self.pull_request(repository, number)
        pull = self._pulls[(name, number)][0]
        for review in pull.get_reviews():
            if self.ours(review, marker):
                return Posted(review.html_url, number)
        return None

    def submit_review(
        self,
        repository: str | None,
        number: int,
        commit_id: str,
        body: str,
        event: str,
        comments: Sequence[Mapping[str, Any]],
    ) -> Posted:
        name, repo = self._repository(repository)
        self.pull_request(repository, number)
        pull = self._pulls[(name, number)][0]
        try:
            review = pull.create_review(
                commit=repo.get_commit(commit_id),
                body=body,
                event=event,
                comments=[cast(ReviewComment, dict(c)) for c in comments],
            )
        except GithubException as exc:
            raise review_error(exc, event, name, number) or exc from None
        return Posted(review.html_url, number)
