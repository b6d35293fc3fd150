"""``close_issue`` through the agent's tools and PyGithub against the fake GitHub: a sanitised
comment then the close, re-apply posting and changing nothing, ``required-labels`` and
``required-title-prefix`` checked on the issue before any write, a pull request refused, and
``max`` and ``target`` enforced when recorded and when applied."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolError
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_apply import apply, hand_written, record

CONFIG: dict[str, Any] = {"close-issue": {"required-labels": ["stale"], "required-title-prefix": "[bot] "}}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("[bot] Flaky test")  # #1, the triggering issue
    server.issues[1]["labels"] = [{"name": "Stale"}]
    yield server
    server.close()


def test_comments_then_closes_once(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("close_issue", {"body": "Fixed by #9, thanks @alice <script>x</script>"}))
    dry = apply(tmp_path, fake, capsys, "--dry-run")
    assert dry.statuses() == ["planned"] and dry.report["items"][0]["required_labels"] == ["stale"]
    assert fake.requests == []
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["created"] and run.report["items"][0]["closed"] is True
    writes = [(r.method, r.path) for r in fake.requests if r.method != "GET" and r.path.startswith("/repos/")]
    assert writes == [("POST", "/repos/octo/hello/issues/1/comments"), ("PATCH", "/repos/octo/hello/issues/1")]
    assert fake.calls("PATCH")[0].body == {"state": "closed", "state_reason": "completed"}
    comment = fake.comments[1][0]["body"]
    assert "<code>@alice</code>" in comment and "<script" not in comment and "aw-harness-safe-output" in comment
    assert fake.issues[1]["state"] == "closed"
    again = apply(tmp_path, fake, capsys)
    assert again.code == 0 and again.statuses() == ["exists"] and again.report["items"][0]["closed"] is False
    assert len(fake.comments[1]) == 1 and len(fake.calls("PATCH")) == 1


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda issue: issue.update(labels=[]), "#1 lacks the required label(s) stale; not closed"),
        (lambda issue: issue.update(title="Flaky test"), "#1's title does not start with the required prefix '[bot] '"),
        (lambda issue: issue.update(pull_request={"url": "x"}), "#1 is a pull request, not an issue"),
    ],
)
def test_an_issue_outside_the_filters_is_left_alone(
    tmp_path: Path, fake: FakeGitHub, capsys: Any, change: Any, reason: str
) -> None:
    record(tmp_path, CONFIG, ("close_issue", {"body": "Done"}))
    change(fake.issues[1])
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["failed"] and reason in run.report["items"][0]["error"]
    assert [r for r in fake.requests if r.method != "GET"] == [r for r in fake.requests if r.path == "/graphql"]
    assert fake.issues[1]["state"] == "open" and 1 not in fake.comments


def test_max_and_target_hold_when_recorded_and_when_applied(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    with pytest.raises(ToolError, match="limit reached: 1 of 1 close_issue"):
        record(tmp_path, CONFIG, ("close_issue", {"body": "a"}), ("close_issue", {"body": "b"}))
    with pytest.raises(ToolError, match="issue_number: not allowed"):
        record(tmp_path, CONFIG, ("close_issue", {"body": "c", "issue_number": 1}))
    hand_written(tmp_path, CONFIG, {"type": "close_issue", "body": "d"})
    run = apply(tmp_path, fake, capsys)
    assert run.statuses() == ["created", "refused"]
    assert run.report["items"][1]["error"] == "over the limit: safe-outputs.close-issue.max is 1"


def test_close_pull_request_closes_it_unmerged_once_and_refuses_an_issue(tmp_path: Path, capsys: Any) -> None:
    server = FakeGitHub()
    try:
        assert server.add_pull([], "a" * 40) == 1
        config = {"close-pull-request": {"required-labels": ["superseded"]}}
        server.issues[1]["labels"] = [{"name": "superseded"}]
        record(tmp_path, config, ("close_pull_request", {"body": "Superseded by #7; see @bob's note"}))
        run = apply(tmp_path, server, capsys)
        assert run.code == 0 and run.statuses() == ["created"], run.report
        writes = [(r.method, r.path) for r in server.requests if r.method in ("POST", "PATCH") and r.path != "/graphql"]
        assert writes == [("POST", "/repos/octo/hello/issues/1/comments"), ("PATCH", "/repos/octo/hello/pulls/1")]
        assert server.calls("PATCH")[0].body == {"state": "closed"} and server.issues[1]["state"] == "closed"
        assert "<code>@bob</code>" in server.comments[1][0]["body"]
        again = apply(tmp_path, server, capsys)
        assert again.statuses() == ["exists"] and len(server.comments[1]) == 1 and len(server.calls("PATCH")) == 1
        server.issues[1].pop("pull_request")  # the triggering item is an issue after all
        server.issues[1]["state"] = "open"
        third = apply(tmp_path, server, capsys)
        assert third.code == 1 and "#1 is an issue, not a pull request" in third.report["items"][0]["error"]
    finally:
        server.close()
