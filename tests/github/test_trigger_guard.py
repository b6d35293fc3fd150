"""The trigger guard with the real PyGithub client against a local fake GitHub API."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from aw_action.github.trigger_guard import DEFAULT_ROLES, check_trigger, parse_bots, parse_roles
from tests.servers.wire import ReceivedRequest, Reply, WireServer, free_port

TOKEN = "ghs_triggerguardtoken0123456789"
ROLES = {
    "octo-admin": ("admin", "admin"),
    "octo-maintainer": ("write", "maintain"),
    "octo-writer": ("write", "write"),
    "octo-triager": ("read", "triage"),
    "stranger": ("read", "read"),
    "auditor": ("write", "security-reviewer"),
}


def fake_github(request: ReceivedRequest) -> Reply:
    """GET /repos/{owner}/{repo}/collaborators/{user}/permission, as GitHub answers it."""
    parts = request.path.split("?")[0].strip("/").split("/")
    if request.headers.get("authorization") not in (f"token {TOKEN}", f"Bearer {TOKEN}"):
        return Reply.json_body({"message": "Bad credentials"}, status=401)
    if len(parts) == 6 and parts[0] == "repos" and parts[3] == "collaborators" and parts[5] == "permission":
        user = parts[4]
        if user not in ROLES:
            return Reply.json_body({"message": f"{user} is not a user"}, status=404)
        permission, role = ROLES[user]
        body = {"permission": permission, "role_name": role, "user": {"login": user, "type": "User"}}
        return Reply.json_body(body)
    return Reply.json_body({"message": "Not Found"}, status=404)


@pytest.fixture
def api() -> Iterator[WireServer]:
    with WireServer(default=fake_github) as server:
        yield server


def env_for(server_url: str, **extra: str) -> dict[str, str]:
    return {"GITHUB_API_URL": server_url, "GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": "octo/repo", **extra}


def comment_by(login: str, kind: str = "User") -> dict[str, Any]:
    return {
        "action": "created",
        "comment": {"body": "@aw please fix", "user": {"login": login}},
        "issue": {"number": 7, "title": "bug"},
        "repository": {"full_name": "octo/repo"},
        "sender": {"login": login, "type": kind},
    }


@pytest.mark.parametrize("login", ["octo-admin", "octo-maintainer", "octo-writer"])
def test_write_maintain_and_admin_may_start_a_run(api: WireServer, login: str) -> None:
    decision = check_trigger("issue_comment", comment_by(login), env_for(api.url))
    assert decision.allowed, decision.reason
    assert decision.actor == login
    assert [r.path for r in api.requests] == [f"/repos/octo/repo/collaborators/{login}/permission"]


@pytest.mark.parametrize("login", ["stranger", "octo-triager"])
def test_read_and_triage_are_refused_with_the_reason(api: WireServer, login: str) -> None:
    decision = check_trigger("issues", comment_by(login), env_for(api.url))
    assert not decision.allowed
    assert f"{login} has role {ROLES[login][1]} on octo/repo: is not allowed" in decision.reason


def test_a_custom_role_is_judged_by_its_base_permission(api: WireServer) -> None:
    decision = check_trigger("discussion_comment", comment_by("auditor"), env_for(api.url))
    assert decision.allowed
    assert "security-reviewer (base permission write)" in decision.reason


def test_configured_roles_replace_the_default(api: WireServer) -> None:
    roles = parse_roles("triage, security-reviewer")
    assert check_trigger("issues", comment_by("octo-triager"), env_for(api.url), allowed_roles=roles).allowed
    assert check_trigger("issues", comment_by("auditor"), env_for(api.url), allowed_roles=roles).allowed
    assert not check_trigger("issues", comment_by("octo-admin"), env_for(api.url), allowed_roles=roles).allowed


def test_an_unknown_user_is_refused(api: WireServer) -> None:
    decision = check_trigger("issue_comment", comment_by("ghost-user"), env_for(api.url))
    assert not decision.allowed and "404" in decision.reason


def test_bots_need_the_allowlist_and_are_not_looked_up(api: WireServer) -> None:
    event = comment_by("dependabot[bot]", kind="Bot")
    refused = check_trigger("issue_comment", event, env_for(api.url))
    assert not refused.allowed and "not in allowed-bots" in refused.reason
    allowed = check_trigger("issue_comment", event, env_for(api.url), allowed_bots=parse_bots("Dependabot, renovate"))
    assert allowed.allowed
    assert check_trigger("issue_comment", event, env_for(api.url), allowed_bots=parse_bots("*")).allowed
    app = comment_by("my-app", kind="Bot")  # a GitHub App whose login lacks the suffix
    assert not check_trigger("issues", app, env_for(api.url), allowed_bots=parse_bots("other[bot]")).allowed
    assert api.requests == []


@pytest.mark.parametrize("event", ["status", "deployment_status", "check_run", "check_suite"])
def test_a_ci_service_s_event_for_a_fork_needs_the_bot_allowlist(api: WireServer, event: str) -> None:
    """Netlify, CircleCI and the like post ``status`` and ``deployment_status`` for a fork's pull
    request as ``check_run`` and ``check_suite`` come: the sender is checked for all four (the
    first two were taken as events no stranger can cause; found by review)."""
    service = comment_by("netlify[bot]", kind="Bot")
    refused = check_trigger(event, service, env_for(api.url))
    assert not refused.allowed and "not in allowed-bots" in refused.reason
    assert check_trigger(event, service, env_for(api.url), allowed_bots=parse_bots("netlify[bot]")).allowed


def test_api_down_refuses(api: WireServer) -> None:
    started = time.monotonic()
    decision = check_trigger("issue_comment", comment_by("octo-admin"), env_for(f"http://127.0.0.1:{free_port()}"))
    assert not decision.allowed
    assert "cannot check octo-admin's permission on octo/repo: GitHub API unreachable" in decision.reason
    assert time.monotonic() - started < 30, "a dead API must not hold the job"


def test_api_errors_refuse_after_a_short_retry(api: WireServer) -> None:
    api.default = Reply.json_body({"message": "Server Error"}, status=502)
    decision = check_trigger("issue_comment", comment_by("octo-admin"), env_for(api.url))
    assert not decision.allowed and "502" in decision.reason
    assert len(api.requests) == 3


def test_bad_credentials_refuse(api: WireServer) -> None:
    decision = check_trigger("issue_comment", comment_by("octo-admin"), env_for(api.url, GITHUB_TOKEN="ghs_wrong"))
    assert not decision.allowed and "401" in decision.reason
    assert TOKEN not in decision.reason


def test_without_a_token_or_an_actor_nothing_runs(api: WireServer) -> None:
    no_token = {k: v for k, v in env_for(api.url).items() if k != "GITHUB_TOKEN"}
    refused = check_trigger("issues", comment_by("octo-admin"), no_token)
    assert not refused.allowed and refused.reason == (
        "cannot check octo-admin's permission: no GitHub token (the github-token input)"
    )
    assert not check_trigger("issues", {}, env_for(api.url)).allowed
    assert api.requests == []


def test_the_sender_is_checked_not_the_rerunning_actor(api: WireServer) -> None:
    env = env_for(api.url, GITHUB_ACTOR="octo-admin", GITHUB_TRIGGERING_ACTOR="octo-admin")
    decision = check_trigger("issue_comment", comment_by("stranger"), env)
    assert not decision.allowed and decision.actor == "stranger"


def test_github_actor_is_used_when_the_payload_has_no_sender(api: WireServer) -> None:
    decision = check_trigger("issues", {"issue": {}}, env_for(api.url, GITHUB_ACTOR="octo-writer"))
    assert decision.allowed and decision.actor == "octo-writer"


@pytest.mark.parametrize("event", ["push", "schedule", "workflow_dispatch", "pull_request"])
def test_events_strangers_cannot_cause_are_not_checked(api: WireServer, event: str) -> None:
    assert check_trigger(event, comment_by("stranger"), env_for(api.url)).allowed
    assert api.requests == []


def test_role_and_bot_inputs_parse_strictly() -> None:
    assert parse_roles("") == DEFAULT_ROLES
    assert parse_roles("Write\nADMIN") == {"write", "admin"}
    with pytest.raises(ValueError, match="not a role name: '<script>'"):
        parse_roles("write, <script>")
    assert parse_bots("dependabot[bot], Renovate\n") == {"dependabot", "renovate"}
    assert parse_bots(None) == frozenset()


def test_the_decision_is_plain_data() -> None:
    decision = check_trigger("push", {}, {})
    assert json.loads(json.dumps(decision.__dict__)) == {
        "allowed": True,
        "reason": "event 'push' is not one strangers can cause",
        "actor": None,
        "role": None,
    }
