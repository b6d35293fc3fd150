"""``add_reviewer`` through the agent's tools and PyGithub against the fake GitHub: the one
request, re-apply harmless, the allowed lists (both spellings) and ``max`` enforced when recorded
and when applied, the author refused by GitHub with its reason, and the dry run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolError
from aw_action.safe_outputs.config import parse_safe_outputs
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_apply import apply, hand_written, record

CONFIG: dict[str, Any] = {"add-reviewer": {"allowed-reviewers": ["Alice", "bob"], "team-reviewers": ["core"], "max": 1}}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    assert server.add_pull([], "a" * 40, author="carol") == 1
    yield server
    server.close()


def test_requests_the_reviews_once_per_call(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("add_reviewer", {"reviewers": ["@alice", "BOB"], "team_reviewers": ["core"]}))
    dry = apply(tmp_path, fake, capsys, "--dry-run")
    assert dry.statuses() == ["planned"] and dry.report["items"][0]["reviewers"] == ["Alice", "bob", "team:core"]
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["applied"]
    (post,) = fake.calls("POST", "^/repos/")
    assert post.path == "/repos/octo/hello/pulls/1/requested_reviewers"
    assert post.body == {"reviewers": ["Alice", "bob"], "team_reviewers": ["core"]}
    again = apply(tmp_path, fake, capsys)
    assert again.code == 0 and fake.issues[1]["_requested"] == {"users": ["Alice", "bob"], "teams": ["core"]}


def test_allowed_lists_and_max_hold(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    assert parse_safe_outputs(CONFIG).to_json()["safe-outputs"]["add-reviewer"]["reviewers"] == ["Alice", "bob"]
    with pytest.raises(ToolError, match=r"reviewers: 'mallory' is not allowed \(allowed: Alice, bob\)"):
        record(tmp_path, CONFIG, ("add_reviewer", {"reviewers": ["mallory"]}))
    with pytest.raises(ToolError, match=r"reviewers\[0\]: 'a b' is not a valid name"):
        record(tmp_path, CONFIG, ("add_reviewer", {"reviewers": ["a b"]}))
    with pytest.raises(ToolError, match="name at least one reviewer"):
        record(tmp_path, CONFIG, ("add_reviewer", {}))
    with pytest.raises(ToolError, match="limit reached: 1 of 1 add_reviewer"):
        record(tmp_path, CONFIG, ("add_reviewer", {"reviewers": ["bob"]}), ("add_reviewer", {"reviewers": ["bob"]}))
    hand_written(tmp_path, CONFIG, {"type": "add_reviewer", "team_reviewers": ["secret-team"]})
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["applied", "refused"]
    assert "team_reviewers: 'secret-team' is not allowed" in run.report["items"][1]["error"]


def test_the_author_cannot_review_their_own_pull_request(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, {"add-reviewer": None}, ("add_reviewer", {"reviewers": ["carol"]}))
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["failed"]
    assert "Review cannot be requested from pull request author" in run.report["items"][0]["error"]
