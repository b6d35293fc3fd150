"""Every event a stranger can cause passes the trigger guard only for an allowed actor (issue 19,
part 5): ``workflow_run`` after a stranger's run, ``watch`` (a star), ``fork``, a fork's
``pull_request``, and events the table does not know. The real PyGithub client asks a local
fake GitHub API for each actor's role (``tests/github/test_trigger_guard.fake_github``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.github.trigger_events import EVENTS, events_markdown
from aw_action.github.trigger_guard import check_trigger
from tests.github.test_trigger_guard import comment_by, env_for, fake_github
from tests.servers.wire import WireServer

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def api() -> Iterator[WireServer]:
    with WireServer(default=fake_github) as server:
        yield server


def _user(login: str) -> dict[str, str]:
    return {"login": login, "type": "Bot" if login.endswith("[bot]") else "User"}


def workflow_run(
    actor: str, triggering: str, head_repo: str = "forker/repo", sender: str | None = None
) -> dict[str, Any]:
    """A ``workflow_run`` payload as GitHub sends it after the triggering run completed."""
    return {
        "action": "completed",
        "workflow_run": {
            "event": "pull_request",
            "actor": _user(actor),
            "triggering_actor": _user(triggering),
            "head_repository": {"full_name": head_repo},
            "repository": {"full_name": "octo/repo"},
        },
        "repository": {"full_name": "octo/repo"},
        "sender": _user(sender or triggering),
    }


def test_a_workflow_run_after_a_stranger_s_fork_run_is_refused(api: WireServer) -> None:
    decision = check_trigger("workflow_run", workflow_run("stranger", "stranger"), env_for(api.url))
    assert not decision.allowed and decision.actor == "stranger"
    assert "stranger has role read on octo/repo: is not allowed" in decision.reason


def test_a_maintainer_re_running_a_stranger_s_run_does_not_let_it_through(api: WireServer) -> None:
    decision = check_trigger("workflow_run", workflow_run("stranger", "octo-maintainer"), env_for(api.url))
    assert not decision.allowed and decision.actor == "stranger"
    paths = [r.path for r in api.requests]
    assert paths == [f"/repos/octo/repo/collaborators/{u}/permission" for u in ("octo-maintainer", "stranger")]


def test_a_workflow_run_of_writers_passes_and_one_without_its_actors_is_refused(api: WireServer) -> None:
    allowed = check_trigger("workflow_run", workflow_run("octo-writer", "octo-admin", "octo/repo"), env_for(api.url))
    assert allowed.allowed, allowed.reason
    payload = workflow_run("octo-writer", "octo-writer")
    del payload["workflow_run"]["actor"]
    refused = check_trigger("workflow_run", payload, env_for(api.url))
    assert not refused.allowed and refused.reason == "event 'workflow_run' does not name the triggering run's actor"


@pytest.mark.parametrize("event", ["watch", "fork", "gollum", "pull_request_review", "some_future_event"])
def test_a_star_a_fork_and_other_events_anyone_can_cause_are_checked(api: WireServer, event: str) -> None:
    refused = check_trigger(event, comment_by("stranger"), env_for(api.url))
    assert not refused.allowed and "stranger has role read" in refused.reason
    assert check_trigger(event, comment_by("octo-writer"), env_for(api.url)).allowed


def test_a_fork_s_pull_request_is_checked_and_a_branch_s_is_not(api: WireServer) -> None:
    def pull_request(head: str) -> dict[str, Any]:
        sides = {"base": {"repo": {"full_name": "octo/repo"}}, "head": {"repo": {"full_name": head}}}
        return {"pull_request": sides, "repository": {"full_name": "octo/repo"}, "sender": _user("stranger")}

    refused = check_trigger("pull_request", pull_request("forker/repo"), env_for(api.url))
    assert not refused.allowed and "stranger has role read" in refused.reason
    assert check_trigger("pull_request", pull_request("octo/repo"), env_for(api.url)).allowed
    assert len(api.requests) == 1


def test_the_docs_show_the_table_the_guard_applies() -> None:
    reference = (REPO / "docs" / "action-reference.md").read_text()
    assert events_markdown() in reference
    assert {"workflow_run", "watch", "fork", "issue_comment", "pull_request_target"} <= set(EVENTS)
