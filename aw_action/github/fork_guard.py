"""Untrusted code stays inert: on a fork's pull request, what the harness *executes or obeys*
(the config file, user extensions, imports, the prompt file) comes from the base commit.

``fork_pull_request(event_name, event)`` says whether the run is for a PR whose head lives in
another repository (``pull_request.head.repo.full_name != base.repo.full_name``, or a head repo
that was deleted) and names the base commit. ``BaseFiles`` then reads a workspace path as it is
on that commit: ``git show``-style from the checkout when the commit is there (``git ls-tree``
+ ``git cat-file``, so a symlink is refused, never followed), else through a fallback (the
contents API) when given, else it refuses with ``UntrustedSourceError`` naming the path.
``materialize`` writes the base versions of several paths into a private folder the harness
then loads from. Paths outside the workspace are not the PR's: they are returned unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement.git_head import workspace_git

PR_EVENTS = frozenset({"pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment"})
GIT_TIMEOUT_S = 30


class UntrustedSourceError(Exception):
    """A file the run needs cannot be taken from the base commit; the message says which."""


@dataclass(frozen=True)
class ForkCheck:
    from_fork: bool
    reason: str
    base_sha: str | None = None
    base_repo: str | None = None
    head_repo: str | None = None


def _repo_name(side: Any) -> str | None:
    repo = side.get("repo") if isinstance(side, Mapping) else None
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    return name if isinstance(name, str) and name else None


def fork_pull_request(event_name: str, event: Mapping[str, Any]) -> ForkCheck:
    if event_name not in PR_EVENTS:
        return ForkCheck(False, f"event '{event_name}' is not a pull request event")
    pr = event.get("pull_request")
    if not isinstance(pr, Mapping):
        return ForkCheck(False, f"event '{event_name}' carries no pull_request")
    base, head = pr.get("base"), pr.get("head")
    base_repo, head_repo = _repo_name(base), _repo_name(head)
    sha = base.get("sha") if isinstance(base, Mapping) else None
    base_sha = sha if isinstance(sha, str) and sha else None
    if head_repo is not None and head_repo == base_repo:
        return ForkCheck(False, f"the pull request's head is in {base_repo} itself", base_sha, base_repo, head_repo)
    where = head_repo or "a deleted repository"
    why = f"the pull request comes from {where}: config, extensions, imports and prompt come from its base commit"
    if base_repo is None:  # a hand-written event (act -e event.json) that left it out
        why = f"the event names no base repository (pull_request.base.repo.full_name), so {why}"
    return ForkCheck(True, why, base_sha, base_repo, head_repo)


def _git(workspace: Path, *args: str) -> bytes | None:
    """A read-only git command on the pull request's checkout, confined (``security/confinement/git_head.py``)."""
    return workspace_git(workspace, *args, purpose="the fork check", timeout_s=GIT_TIMEOUT_S)


class BaseFiles:
    """Workspace files as they are on ``base_sha``."""

    def __init__(
        self, workspace: Path, base_sha: str, *, fallback: Callable[[str], bytes | None] | None = None
    ) -> None:
        self.workspace = workspace.resolve()
        self.base_sha = base_sha
        self.fallback = fallback

    def relative(self, path: str | Path) -> str | None:
        """The repository path of ``path`` (relative to the workspace); ``None`` when it lies
        outside the workspace (then it is not the PR's to change)."""
        absolute = Path(os.path.normpath(self.workspace / path))
        try:
            return PurePosixPath(absolute.relative_to(self.workspace)).as_posix()
        except ValueError:
            return None

    def read(self, path: str | Path) -> bytes:
        rel = self.relative(path)
        if rel is None:
            raise UntrustedSourceError(f"{path}: outside the workspace, not a repository file")
        listing = _git(self.workspace, "ls-tree", "-z", self.base_sha, "--", rel)
        if listing:
            meta, _, _ = listing.partition(b"\t")
            mode, kind, oid = meta.decode().split(" ")
            if kind != "blob" or mode == "120000":
                raise UntrustedSourceError(f"{rel}: on the base commit it is a {'symlink' if kind == 'blob' else kind}")
            data = _git(self.workspace, "cat-file", "blob", oid)
            if data is not None:
                return data
        elif listing == b"":  # the commit is there, the path is not
            raise UntrustedSourceError(f"{rel}: not on the base branch ({self.base_sha[:12]}); a fork cannot add it")
        if self.fallback is not None:
            data = self.fallback(rel)
            if data is not None:
                return data
        raise UntrustedSourceError(
            f"{rel}: the base commit {self.base_sha[:12]} is not in the checkout and could not be fetched; "
            "refusing to use the pull request's version"
        )

    def materialize(self, paths: Iterable[str | Path], dest: Path) -> dict[str, Path]:
        """Write each workspace path's base version under ``dest`` (same relative layout);
        returns the original path -> the file to use. Outside paths map to themselves."""
        out: dict[str, Path] = {}
        for path in paths:
            rel = self.relative(path)
            if rel is None:
                out[str(path)] = Path(path)
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(self.read(path))
            out[str(path)] = target
        return out


def contents_api_fallback(api_url: str, token: str, repository: str, ref: str) -> Callable[[str], bytes | None]:
    """Read a file at ``ref`` with PyGithub's contents API (for shallow checkouts)."""

    def fetch(rel: str) -> bytes | None:
        from github import Auth, Github, GithubException

        try:
            gh = Github(base_url=api_url, auth=Auth.Token(token), timeout=10, retry=None, lazy=True)
            content = gh.get_repo(repository).get_contents(rel, ref=ref)
        except (GithubException, OSError):
            return None
        if isinstance(content, list) or content.type != "file":
            return None
        data: bytes = content.decoded_content
        return data

    return fetch
