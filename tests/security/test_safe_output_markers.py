"""A stranger who posts a safe output's idempotency marker first cannot suppress the item
(issue 19, part 5): the apply job trusts a marker only on an item its own login wrote.

The real ``aw-harness apply-safe-outputs`` with PyGithub against the local fake GitHub REST
server (``tests/safe_outputs/fake_github.py``), which answers who a token is as GitHub does: the
job's ``GITHUB_TOKEN`` is an installation token (``GET /user`` refused, GraphQL ``viewer`` is
``github-actions[bot]``), a personal access token answers ``GET /user``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_apply import CONFIG, MARKER, TOKEN, apply, record

PAT = "ghp_PersonalAccessTokenOfTheBotUser0123"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("The triggering issue")  # #1
    yield server
    server.close()


def planned_markers(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> list[str]:
    planned = apply(tmp_path, fake, capsys, "--dry-run")
    return [MARKER.search(item["body"]).group(0) for item in planned.report["items"]]  # type: ignore[union-attr]


def test_a_stranger_s_comment_with_the_marker_does_not_suppress_the_comment(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    record(tmp_path, CONFIG, ("add_comment", {"body": "The fix is in #2."}))
    (marker,) = planned_markers(tmp_path, fake, capsys)
    fake.add_comment(1, f"first! {marker}", author="stranger")
    run = apply(tmp_path, fake, capsys)
    assert run.statuses() == ["created"], run.report
    stranger, ours = fake.comments[1]
    assert stranger["user"]["login"] == "stranger"
    assert ours["user"]["login"] == "github-actions[bot]" and marker in ours["body"]
    assert [r.path for r in fake.calls(None, "^/user$|^/graphql$")] == ["/user", "/graphql"]
    again = apply(tmp_path, fake, capsys)  # the job's own comment now counts: nothing twice
    assert again.statuses() == ["exists"] and len(fake.comments[1]) == 2


def test_a_stranger_s_issue_with_the_marker_does_not_suppress_the_issue(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "Crash on start", "body": "Steps to reproduce."}))
    (marker,) = planned_markers(tmp_path, fake, capsys)
    planted = fake.add_issue("[bot] Crash on start", body=f"squatted {marker}", author="stranger")
    run = apply(tmp_path, fake, capsys)
    assert run.statuses() == ["created"], run.report
    (item,) = run.report["items"]
    assert item["number"] != planted and fake.issues[item["number"]]["user"]["login"] == "github-actions[bot]"


def test_with_a_personal_access_token_the_token_s_user_is_the_author_that_counts(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    fake.identities[PAT] = ("octo-bot", "user")
    record(tmp_path, CONFIG, ("add_comment", {"body": "Thanks"}))
    (marker,) = planned_markers(tmp_path, fake, capsys)
    fake.add_comment(1, marker, author="github-actions[bot]")  # another workflow's bot is not this token
    first = apply(tmp_path, fake, capsys, GITHUB_TOKEN=PAT)
    assert first.statuses() == ["created"] and fake.comments[1][-1]["user"]["login"] == "octo-bot"
    assert [r.path for r in fake.calls(None, "^/user$|^/graphql$")] == ["/user"]
    second = apply(tmp_path, fake, capsys, GITHUB_TOKEN=PAT)
    assert second.statuses() == ["exists"] and len(fake.comments[1]) == 2
    assert TOKEN not in first.stderr + second.stderr
