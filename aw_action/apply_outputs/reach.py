"""``target-repo``: whether the apply job's token reaches the other repository, in words that
name the kind and the repository.

Before the first write to a repository other than the job's own, the job reads it (``GET
/repos/{owner}/{name}``, once per run): a 401, 403 or 404 there means the token cannot see it, and
every record for it fails with that reason before anything is written. A token that can read
but not write (a 403 "Resource not accessible by integration", or GitHub's 404 for a write it
hides) fails the record at that write, worded the same way. Rate limits are not reach: they are
retried (``github_api.is_retryable``) and reported as they are.
"""

from __future__ import annotations

from collections.abc import Callable

from github import GithubException

from aw_action.apply_outputs.github_api import describe, is_retryable
from aw_action.safe_outputs.kinds.apply_api import ApplyError

REACH_STATUSES = frozenset({401, 403, 404})


def _falls_short(exc: BaseException) -> bool:
    return isinstance(exc, GithubException) and exc.status in REACH_STATUSES and not is_retryable(exc)


def check(read: Callable[[], object], key: str, repository: str) -> None:
    """``read()`` (the repository's own ``GET``); ``ApplyError`` naming ``key`` and ``repository``
    when the token cannot see it."""
    try:
        read()
    except GithubException as exc:
        if not _falls_short(exc):
            raise
        raise ApplyError(
            f"safe-outputs.{key}.target-repo: this job's token cannot read {repository} ({describe(exc)}); "
            f"nothing was written there: give the apply job a token that reaches {repository}"
        ) from None


def refused(exc: GithubException, key: str, repository: str) -> Exception:
    """A write refused in another repository, worded with the kind and the repository; any other
    error as it was."""
    if not _falls_short(exc):
        return exc
    return ApplyError(
        f"safe-outputs.{key}.target-repo: {repository} refused this job's token ({describe(exc)}): the token "
        f"does not have write access there, or the issue or pull request does not exist in {repository}"
    )
