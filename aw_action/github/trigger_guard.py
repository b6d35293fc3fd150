"""Strangers cannot start paid runs: check who triggered an event-driven run before any model
request.

Which events are checked, and whom, is ``trigger_events.EVENTS`` (one table, also in the docs):
events that need write access to cause pass unchecked; events anyone can cause on a public
repository (a comment, an issue, a review, a star, a fork, a fork's pull request, a
``workflow_run`` after a fork's run, ...) and events the table does not know are checked.

The actors are the event's ``sender`` (who wrote the comment or opened the issue), else
``GITHUB_ACTOR``; for ``workflow_run`` also the triggering run's ``actor`` and
``triggering_actor``. Each must pass, in order:
1. a bot (login ending in ``[bot]`` or ``type == "Bot"``) is allowed only when
   ``allowed_bots`` names it (with or without ``[bot]``, any case) or is ``*``; bots are not
   looked up (they are not collaborators);
2. anyone else is looked up with PyGithub (``GITHUB_API_URL``, ``GITHUB_TOKEN``): their role on
   the repository (``admin``, ``maintain``, ``write``, ``triage``, ``read`` or a custom role's
   name) must be in ``allowed_roles`` (default write, maintain, admin); a custom role is also
   judged by the base permission it maps to;
3. no token, no actor, or the API failing (down, timing out, an error status) refuses: a check
   that cannot be made is a check that failed.
A refusal is not an error: the caller ends the run with conclusion ``skipped``, a notice with
``reason``, exit 0, outputs written and no model request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from aw_action.environment.runner import ACTOR_VAR, REPOSITORY_VAR, RunnerFacts
from aw_action.github.fork_guard import fork_pull_request
from aw_action.github.trigger_events import rule_for
from aw_action.lazy_dataclass import dataclass

BASE_ROLES = ("admin", "maintain", "write", "triage", "read")
DEFAULT_ROLES = frozenset({"admin", "maintain", "write"})
TIMEOUT_S = 10
_ROLE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _-]*$")


@dataclass(frozen=True)
class TriggerDecision:
    allowed: bool
    reason: str
    actor: str | None = None
    role: str | None = None


def parse_roles(text: str | None) -> frozenset[str]:
    """The ``allowed-actor-roles`` input: names separated by commas or new lines; empty means
    the default. Raises ``ValueError`` naming a malformed entry."""
    items = [item.strip() for item in re.split(r"[\n,]", text or "") if item.strip()]
    for item in items:
        if not _ROLE_NAME.match(item):
            raise ValueError(f"not a role name: {item!r} (use {', '.join(BASE_ROLES)} or a custom role's name)")
    return frozenset(item.lower() for item in items) or DEFAULT_ROLES


def parse_bots(text: str | None) -> frozenset[str]:
    """The ``allowed-bots`` input: bot logins (``[bot]`` optional) or ``*``; empty allows none."""
    return frozenset(_bot_name(item) for item in re.split(r"[\n,]", text or "") if item.strip())


def _bot_name(login: str) -> str:
    return login.strip().lower().removesuffix("[bot]")


def _login(user: Any) -> tuple[str, bool] | None:
    """``(login, is a bot)`` of a payload's user object, or None."""
    if not isinstance(user, Mapping) or not isinstance(user.get("login"), str) or not user["login"]:
        return None
    login = str(user["login"])
    return login, login.endswith("[bot]") or user.get("type") == "Bot"


def _sender(event: Mapping[str, Any], runner: RunnerFacts) -> tuple[str, bool] | None:
    found = _login(event.get("sender"))
    if found is not None:
        return found
    actor = runner.actor or None
    return (actor, actor.endswith("[bot]")) if actor else None


_RUN_ACTORS = (("actor", "the triggering run's actor"), ("triggering_actor", "the triggering run's triggering actor"))


def _actors(event_name: str, event: Mapping[str, Any], runner: RunnerFacts) -> list[tuple[str, bool] | str] | None:
    """Whom to check for this event (``trigger_events``), or None when nobody; a string stands
    for an actor the payload does not name (why)."""
    check = rule_for(event_name).check
    if check == "none" or (check == "fork" and not fork_pull_request(event_name, event).from_fork):
        return None
    sender = _sender(event, runner)
    actors: list[tuple[str, bool] | str] = [
        sender or f"event '{event_name}' names no actor (no sender, no {ACTOR_VAR})"
    ]
    if check == "run":
        run = event.get("workflow_run")
        run = run if isinstance(run, Mapping) else {}
        for key, who in _RUN_ACTORS:
            found = _login(run.get(key))
            if found is None:
                actors.append(f"event '{event_name}' does not name {who}")
            elif found not in actors:
                actors.append(found)
    return actors


def _repository(event: Mapping[str, Any], runner: RunnerFacts) -> str | None:
    named = runner.repository
    if named:
        return named
    repo = event.get("repository")
    name = repo.get("full_name") if isinstance(repo, Mapping) else None
    return name if isinstance(name, str) and name else None


def default_client(api_url: str, token: str) -> Any:
    """A PyGithub client that fails fast: a short timeout and two retries on 5xx or resets."""
    from github import Auth, Github
    from urllib3.util.retry import Retry

    retry = Retry(total=2, backoff_factor=0.2, status_forcelist=(500, 502, 503, 504), allowed_methods=("GET",))
    return Github(base_url=api_url, auth=Auth.Token(token), timeout=TIMEOUT_S, retry=retry, lazy=True)


def check_trigger(
    event_name: str,
    event: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    allowed_roles: Iterable[str] = DEFAULT_ROLES,
    allowed_bots: Iterable[str] = (),
    client: Callable[[str, str], Any] = default_client,
    runner: RunnerFacts | None = None,
) -> TriggerDecision:
    """Apply the module's rules; never raises. ``runner``: the entry point's record of the
    runner's facts (read from ``env`` when a library caller passes none); ``env`` gives the token."""
    runner = runner or RunnerFacts.read(env)
    actors = _actors(event_name, event, runner)
    if actors is None:
        return TriggerDecision(True, f"event '{event_name or 'unknown'}' is not one strangers can cause")
    decision = TriggerDecision(False, "no actor")
    for actor in actors:
        decision = _check_actor(actor, event, env, runner, allowed_roles, allowed_bots, client)
        if not decision.allowed:
            return decision
    return decision


def _check_actor(
    found: tuple[str, bool] | str,
    event: Mapping[str, Any],
    env: Mapping[str, str],
    runner: RunnerFacts,
    allowed_roles: Iterable[str],
    allowed_bots: Iterable[str],
    client: Callable[[str, str], Any],
) -> TriggerDecision:
    if isinstance(found, str):
        return TriggerDecision(False, found)
    actor, is_bot = found
    if is_bot:
        bots = {_bot_name(b) for b in allowed_bots}
        if "*" in bots or _bot_name(actor) in bots:
            return TriggerDecision(True, f"bot {actor} is in allowed-bots", actor, "bot")
        return TriggerDecision(False, f"bot {actor} is not in allowed-bots", actor, "bot")
    repository, token = _repository(event, runner), env.get("GITHUB_TOKEN", "")
    if not repository or not token:
        missing = REPOSITORY_VAR if not repository else "GitHub token (the github-token input)"
        return TriggerDecision(False, f"cannot check {actor}'s permission: no {missing}", actor)
    roles = {r.lower() for r in allowed_roles}
    try:
        return _judge(client(runner.api, token), repository, actor, roles)
    except Exception as exc:  # the API down, a timeout, an error status: refuse, say why
        return TriggerDecision(False, f"cannot check {actor}'s permission on {repository}: {_describe(exc)}", actor)


def _judge(gh: Any, repository: str, actor: str, roles: set[str]) -> TriggerDecision:
    repo = gh.get_repo(repository)  # lazy: no request until the permission call
    role = str(repo.get_collaborator_role_name(actor)).lower()
    judged = role
    if role not in BASE_ROLES and role not in roles:
        judged = str(repo.get_collaborator_permission(actor)).lower()  # a custom role's base permission
    allowed = judged in roles or role in roles
    wanted = ", ".join(sorted(roles))
    verdict = "is allowed" if allowed else "is not allowed"
    shown = role if judged == role else f"{role} (base permission {judged})"
    return TriggerDecision(
        allowed, f"{actor} has role {shown} on {repository}: {verdict} (allowed: {wanted})", actor, role
    )


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status", None)
    if status == 404:
        return "GitHub answered 404 (not a user, or the token cannot see the repository)"
    if isinstance(status, int):
        return f"GitHub answered {status}"
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"GitHub API unreachable ({type(exc).__name__}{': ' + text[:200] if text else ''})"
