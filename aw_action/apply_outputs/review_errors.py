"""GitHub's refusals around pull request reviews, in words that name the fix.

An approval with the workflow's ``GITHUB_TOKEN`` works only where the repository (or its
organisation) lets Actions approve pull requests: Settings -> Actions -> General -> Workflow
permissions -> "Allow GitHub Actions to create and approve pull requests" (the API's
``can_approve_pull_request_reviews``). GitHub answers 422 "GitHub Actions is not permitted to
approve pull requests." otherwise. Nobody approves or requests changes on their own pull request
(422 "Can not approve your own pull request"). A token that cannot read the target repository
(``target-repo``) gets 404 or 403.
"""

from __future__ import annotations

from github import GithubException

from aw_action.apply_outputs.github_api import describe
from aw_action.safe_outputs.kinds.apply_api import ApplyError

ACTIONS_SETTING = (
    "Settings -> Actions -> General -> Workflow permissions -> "
    "'Allow GitHub Actions to create and approve pull requests'"
)


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return f"{data.get('message', '')} {data.get('errors', '')}".lower()


def review_error(exc: GithubException, event: str, repository: str, number: int) -> ApplyError | None:
    """The refusal of ``POST /pulls/{n}/reviews`` worded with its fix; None when it is another error."""
    if exc.status != 422:
        return None
    text = _message(exc)
    if "not permitted to approve" in text:
        return ApplyError(
            f"{event} refused by GitHub: {repository} does not let GitHub Actions approve pull requests "
            f"(turn on {ACTIONS_SETTING}, or apply with another identity's token); nothing was posted"
        )
    if "your own pull request" in text:
        return ApplyError(
            f"{event} refused by GitHub on {repository}#{number}: nobody approves or requests changes on "
            "their own pull request, and this token's login opened it; nothing was posted"
        )
    if "part of the diff" in text or "line could not be resolved" in text:
        return ApplyError(
            f"GitHub refused a comment's line on {repository}#{number} ({describe(exc)}); nothing was posted"
        )
    return None


def reach_error(exc: GithubException, repository: str, number: int) -> Exception:
    """A pull request the token cannot read: name the repository (``target-repo``)."""
    if exc.status in (401, 403, 404):
        return ApplyError(
            f"cannot read pull request #{number} in {repository} ({describe(exc)}): it does not exist or this "
            f"job's token does not reach {repository} (give the apply job a token with pull-requests: write there)"
        )
    return exc
