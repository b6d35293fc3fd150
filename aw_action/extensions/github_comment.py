"""One comment on the triggering issue or pull request, through PyGithub: where it goes, how it
is created and edited, and what a failure means.

The target comes from the event (``GITHUB_EVENT_PATH``, ``GITHUB_EVENT_NAME``): ``issue.number``
for ``issues`` and ``issue_comment`` (a comment on a pull request too), ``pull_request.number``
for the pull-request events. A pull request takes issue comments, so both go through the issue
comments API (``POST .../issues/{n}/comments``, ``PATCH .../issues/comments/{id}``).

The client fails fast (``TIMEOUT_S`` per request, no retries of its own, no write throttling):
the caller decides when to try again (``Failure``) and spaces its writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aw_action.environment.event_file import EventFileUnreadable, read_event_file
from aw_action.environment.runner import DEFAULT_API_URL, EVENT_PATH_VAR, REPOSITORY_VAR, RunnerFacts
from aw_action.lazy_dataclass import dataclass

TIMEOUT_S = 10
PERMANENT = frozenset({401, 403, 404, 410, 422})
"""Statuses that another try will not change (unless the 403 is a rate limit)."""
RATE_LIMIT_WAIT_S = 60.0


@dataclass(frozen=True)
class CommentTarget:
    repository: str
    number: int
    kind: str
    """``issue`` or ``pull request``."""

    def __str__(self) -> str:
        return f"{self.repository} {self.kind} #{self.number}"


def comment_target(runner: RunnerFacts) -> CommentTarget | str:
    """Where the comment goes, or why there is nowhere to put it."""
    repository, path, name = runner.repository, runner.event_path, runner.event_name or "this"
    if not repository or not path:
        return f"{REPOSITORY_VAR} or {EVENT_PATH_VAR} is not set (not a GitHub Actions run?)"
    try:
        event = read_event_file(path)
    except EventFileUnreadable:
        event = {}
    for key, kind in (("pull_request", "pull request"), ("issue", "issue")):
        number = event.get(key, {}).get("number") if isinstance(event.get(key), dict) else None
        if isinstance(number, int) and not isinstance(number, bool) and number > 0:
            if kind == "issue" and isinstance(event[key].get("pull_request"), dict):
                kind = "pull request"
            return CommentTarget(repository, number, kind)
    return f"the {name} event has no issue or pull request to comment on"


@dataclass(frozen=True)
class Failure:
    """What a failed request means for the next one."""

    message: str
    permanent: bool
    wait_s: float = 0.0
    """For a rate limit: how long to leave the API alone."""


def failure(exc: BaseException) -> Failure:
    status = getattr(exc, "status", None)
    raw: Mapping[str, Any] = getattr(exc, "headers", None) or {}
    headers = {str(k).lower(): str(v) for k, v in raw.items()}
    data = getattr(exc, "data", None)
    detail = data.get("message") if isinstance(data, dict) else None
    text = f"HTTP {status}: {detail or 'no message'}" if isinstance(status, int) else f"{type(exc).__name__}: {exc}"
    limited = status == 429 or (
        status == 403 and ("retry-after" in headers or headers.get("x-ratelimit-remaining") == "0")
    )
    if limited:
        try:
            wait = float(headers.get("retry-after", RATE_LIMIT_WAIT_S))
        except ValueError:
            wait = RATE_LIMIT_WAIT_S
        return Failure(f"{text} (rate limited)", False, min(max(wait, 1.0), 3600.0))
    return Failure(text, isinstance(status, int) and status in PERMANENT)


class IssueComments:
    """Creates and edits one comment; every call blocks (run it off the event loop)."""

    def __init__(self, target: CommentTarget, token: str, api_url: str = DEFAULT_API_URL) -> None:
        from github import Auth, Github

        self.target = target
        gh = Github(
            base_url=api_url.rstrip("/") or DEFAULT_API_URL,
            auth=Auth.Token(token),
            timeout=TIMEOUT_S,
            retry=None,
            seconds_between_writes=0,
            lazy=True,
        )
        self._issue = gh.get_repo(target.repository).get_issue(target.number)
        self._comment: Any = None

    @property
    def created(self) -> bool:
        return self._comment is not None

    def put(self, body: str) -> None:
        """Create the comment the first time, edit it after."""
        if self._comment is None:
            self._comment = self._issue.create_comment(body)
        else:
            self._comment.edit(body)
