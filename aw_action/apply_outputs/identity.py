"""Who the apply job writes as: the login GitHub puts on every item this token creates.

A personal or OAuth token answers ``GET /user`` (PyGithub's ``get_user().login``). An
installation token (a GitHub App's, or the job's ``GITHUB_TOKEN``, whose items are
``github-actions[bot]``'s) gets 403 "Resource not accessible by integration" there, and
``GET /app`` needs the app's JWT; GraphQL's ``viewer`` answers both kinds, an app with its bot
login (``<slug>[bot]``). Only items this login wrote count as the job's own when their marker
is found (``github_writer.py``): a marker anyone else posted first is no proof the item exists.
"""

from __future__ import annotations

from typing import Any

from github import Github, GithubException

VIEWER = "query { viewer { login } }"
INTEGRATION_REFUSALS = (401, 403)
"""``GET /user``'s answer to an installation token."""


def applying_login(gh: Github) -> str | None:
    """The token's login, or None when GitHub tells neither way (then no marker is trusted)."""
    try:
        return str(gh.get_user().login)
    except GithubException as exc:
        if exc.status not in INTEGRATION_REFUSALS:
            raise
    try:
        _, data = gh.requester.graphql_query(VIEWER, {})
    except GithubException as exc:
        if exc.status not in (400, 404, *INTEGRATION_REFUSALS):
            raise
        return None
    login = (data.get("data") or {}).get("viewer", {}).get("login")
    return login if isinstance(login, str) and login else None


def authored_by(item: Any, login: str | None) -> bool:
    """Whether ``item`` (an issue, pull request or comment) was written by ``login``."""
    user = getattr(item, "user", None)
    author = getattr(user, "login", None) if user is not None else None
    return login is not None and isinstance(author, str) and author.lower() == login.lower()
