"""Who can cause each event that starts a workflow, and whom the trigger guard checks for it.

One table, ``EVENTS``: an event whose cause needs write access (or admin, or a token with
write scopes) is not checked; an event anyone can cause on a public repository is, by who
caused it. An event the table does not name is checked like ``issues`` (its sender), so a new
kind of event fails closed; no event at all (``GITHUB_EVENT_NAME`` unset: not run by GitHub) is
not checked. ``events_markdown`` renders the table for docs/action-reference.md
(a test keeps the two the same).

Checks:
- ``none``: not checked;
- ``sender``: the payload's ``sender`` (else ``GITHUB_ACTOR``);
- ``fork``: the sender, when the pull request's head is in another repository (or a deleted
  one, ``fork_guard.fork_pull_request``); a branch of the repository needs write access;
- ``run``: a ``workflow_run`` is as trustworthy as the run that triggered it: the sender, the
  triggering run's ``actor`` (who caused its event: a fork's PR author) and its
  ``triggering_actor`` (who started or re-ran it) must all pass.
"""

from __future__ import annotations

from typing import Literal

from aw_action.environment.runner import EVENT_NAME_VAR
from aw_action.lazy_dataclass import dataclass

Check = Literal["none", "sender", "fork", "run"]


@dataclass(frozen=True)
class EventRule:
    check: Check
    who: str
    """Who can cause the event (GitHub's permissions), as the docs say it."""


_WRITE = "people with write access"
EVENTS: dict[str, EventRule] = {
    "branch_protection_rule": EventRule("none", "admins"),
    "check_run": EventRule("sender", "GitHub Apps, also for a fork's pull request"),
    "check_suite": EventRule("sender", "GitHub Apps, also for a fork's pull request"),
    "create": EventRule("none", _WRITE),
    "delete": EventRule("none", _WRITE),
    "deployment": EventRule("none", _WRITE),
    "deployment_status": EventRule("sender", "GitHub Apps and CI services, also for a fork's pull request"),
    "discussion": EventRule("sender", "anyone who can read a repository with discussions"),
    "discussion_comment": EventRule("sender", "anyone who can read a repository with discussions"),
    "fork": EventRule("sender", "anyone who can read the repository"),
    "gollum": EventRule("sender", "anyone, when the wiki is open to every user"),
    "issue_comment": EventRule("sender", "anyone who can read the repository"),
    "issues": EventRule("sender", "anyone who can read the repository"),
    "label": EventRule("none", "people with triage access"),
    "merge_group": EventRule("none", _WRITE),
    "milestone": EventRule("none", "people with triage access"),
    "page_build": EventRule("none", _WRITE),
    "project": EventRule("none", _WRITE),
    "project_card": EventRule("none", _WRITE),
    "project_column": EventRule("none", _WRITE),
    "public": EventRule("none", "admins"),
    "pull_request": EventRule(
        "fork", "anyone, from a fork (a fork's run gets no secrets unless the repository sends them)"
    ),
    "pull_request_review": EventRule("sender", "anyone who can read the repository"),
    "pull_request_review_comment": EventRule("sender", "anyone who can read the repository"),
    "pull_request_target": EventRule("sender", "anyone, from a fork; the run has the base repository's secrets"),
    "push": EventRule("none", _WRITE),
    "registry_package": EventRule("none", "people who can publish packages"),
    "release": EventRule("none", _WRITE),
    "repository_dispatch": EventRule("none", "a token with write access"),
    "schedule": EventRule("none", "people with write access (the default branch's workflow)"),
    "status": EventRule("sender", "CI services (Netlify, CircleCI, ...), also for a fork's pull request"),
    "watch": EventRule("sender", "anyone who can read the repository (a star)"),
    "workflow_dispatch": EventRule("none", _WRITE),
    "workflow_run": EventRule("run", "whoever caused the triggering run: anyone, through a fork's pull request"),
}
UNLISTED = EventRule("sender", "an event this table does not name")

_CHECKED = {
    "none": "not checked",
    "sender": "the sender",
    "fork": "the sender, when the head is a fork",
    "run": "the sender and the triggering run's actor and triggering actor",
}


NO_EVENT = EventRule("none", f"nobody: not run by a GitHub event ({EVENT_NAME_VAR} is unset)")


def rule_for(event_name: str) -> EventRule:
    if not event_name:
        return NO_EVENT
    return EVENTS.get(event_name, UNLISTED)


def events_markdown() -> str:
    """The table as markdown: event, who can cause it, who the guard checks."""
    rows = ["| event | who can cause it | checked |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {rule.who} | {_CHECKED[rule.check]} |" for name, rule in EVENTS.items()]
    rows.append(f"| any other | {UNLISTED.who} | {_CHECKED[UNLISTED.check]} |")
    return "\n".join(rows) + "\n"
