"""``target-repo`` on every kind gh-aw gives it (``SafeOutputTargetConfig``), through the agent's
tools and PyGithub against the fake GitHub: the job runs in ``octo/home`` and the items go to
``octo/hello`` (the fake's repository), which the job reads once before its first write there;
a repository the token cannot read (the fake's 404) or cannot write (a 403) fails the record with
an error naming the kind and the repository, and nothing is written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.safe_outputs.config import SafeOutputsConfigError, parse_safe_outputs
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_apply import apply, record

HOME = {"GITHUB_REPOSITORY": "octo/home"}
THERE = {"target-repo": "octo/hello", "target": "*"}

# kind -> (its config with target-repo, the agent's arguments, the write it makes in octo/hello)
CASES: dict[str, tuple[dict[str, Any], dict[str, Any], tuple[str, str]]] = {
    "create_issue": ({"target-repo": "octo/hello"}, {"title": "T", "body": "B"}, ("POST", "/issues")),
    "add_comment": (THERE, {"body": "Hi @bob", "item_number": 1}, ("POST", "/issues/1/comments")),
    "add_labels": (THERE, {"labels": ["bug"], "item_number": 1}, ("POST", "/issues/1/labels")),
    "remove_labels": (THERE, {"labels": ["stale"], "item_number": 1}, ("DELETE", "/issues/1/labels/stale")),
    "update_issue": ({**THERE, "title": None}, {"title": "New", "issue_number": 1}, ("PATCH", "/issues/1")),
    "close_issue": (THERE, {"body": "Done", "issue_number": 1}, ("POST", "/issues/1/comments")),
    "update_pull_request": (
        {**THERE, "body": None},
        {"body": "More", "pull_request_number": 2},
        ("PATCH", "/issues/2"),
    ),
    "close_pull_request": (THERE, {"body": "No", "pull_request_number": 2}, ("POST", "/issues/2/comments")),
    "add_reviewer": (
        THERE,
        {"reviewers": ["carol"], "pull_request_number": 2},
        ("POST", "/pulls/2/requested_reviewers"),
    ),
}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("Elsewhere")  # #1
    server.issues[1]["labels"] = [{"name": "stale"}]
    server.add_pull([], "b" * 40)  # #2
    yield server
    server.close()


def _writes(fake: FakeGitHub) -> list[Any]:
    return [r for r in fake.requests if r.method != "GET" and r.path.startswith("/repos/")]


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_kind_writes_in_the_target_repo_once(tmp_path: Path, fake: FakeGitHub, capsys: Any, kind: str) -> None:
    config, args, (method, path) = CASES[kind]
    record(tmp_path, {kind.replace("_", "-"): config}, (kind, args))
    dry = apply(tmp_path, fake, capsys, "--dry-run", **HOME)
    assert dry.code == 0 and dry.report["items"][0]["repository"] == "octo/hello"
    assert fake.requests == []
    run = apply(tmp_path, fake, capsys, **HOME)
    assert run.code == 0, run.report
    assert run.report["items"][0]["repository"] == "octo/hello"
    repo_calls = [(r.method, r.path) for r in fake.requests if r.path.startswith("/repos/")]
    assert repo_calls[0] == ("GET", "/repos/octo/hello")  # the reach check, before any write
    assert (method, "/repos/octo/hello" + path) in repo_calls
    assert not [r for r in fake.requests if "octo/home" in r.path]
    assert "in `octo/hello`" in run.summary
    writes = len(_writes(fake))
    again = apply(tmp_path, fake, capsys, **HOME)
    assert again.code == 0
    if kind not in ("add_labels", "remove_labels", "add_reviewer"):  # those are idempotent writes by themselves
        assert again.statuses() == ["exists"] and len(_writes(fake)) == writes


@pytest.mark.parametrize("kind", ["create_issue", "add_comment", "close_issue", "add_reviewer"])
def test_a_repository_the_token_cannot_read_is_named(tmp_path: Path, fake: FakeGitHub, capsys: Any, kind: str) -> None:
    config, args, _ = CASES[kind]
    record(tmp_path, {kind.replace("_", "-"): {**config, "target-repo": "octo/elsewhere"}}, (kind, args))
    run = apply(tmp_path, fake, capsys, **HOME)
    assert run.code == 1 and run.statuses() == ["failed"]
    error = run.report["items"][0]["error"]
    assert f"safe-outputs.{kind.replace('_', '-')}.target-repo: this job's token cannot read octo/elsewhere" in error
    assert "GitHub answered 404" in error
    assert [(r.method, r.path) for r in fake.requests if r.path.startswith("/repos/")] == [
        ("GET", "/repos/octo/elsewhere")
    ]


def test_a_repository_the_token_can_read_but_not_write_is_named(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    fake.fail("POST", r"/issues/1/comments$", 403, message="Resource not accessible by integration")
    config, args, _ = CASES["add_comment"]
    record(tmp_path, {"add-comment": config}, ("add_comment", args))
    run = apply(tmp_path, fake, capsys, **HOME)
    assert run.code == 1
    error = run.report["items"][0]["error"]
    assert "safe-outputs.add-comment.target-repo: octo/hello refused this job's token" in error
    assert "Resource not accessible by integration" in error and 1 not in fake.comments


def test_the_reach_check_is_made_once_per_repository(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    config = {"add-comment": {**THERE, "max": 3}}
    record(tmp_path, config, *[("add_comment", {"body": f"c{i}", "item_number": 1}) for i in range(3)])
    run = apply(tmp_path, fake, capsys, **HOME)
    assert run.statuses() == ["created"] * 3
    assert len(fake.calls("GET", "^/repos/octo/hello$")) == 1


def test_the_job_s_own_repository_needs_no_reach_check(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, {"add-comment": THERE}, ("add_comment", {"body": "x", "item_number": 1}))
    run = apply(tmp_path, fake, capsys)  # GITHUB_REPOSITORY is octo/hello itself
    assert run.code == 0 and fake.calls("GET", "^/repos/octo/hello$") == []


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"add-comment": {"target-repo": "octo/hello"}}, "target-repo octo/hello needs target '*' or a number"),
        ({"close-issue": {"target-repo": "not a repo", "target": 1}}, "must be owner/name"),
        ({"create-pull-request": {"target-repo": "octo/hello"}}, "create-pull-request.target-repo: Extra inputs"),
        ({"noop": {"target-repo": "octo/hello"}}, "noop.target-repo: Extra inputs"),
    ],
)
def test_target_repo_config_errors_name_the_key(config: dict[str, Any], error: str) -> None:
    with pytest.raises(SafeOutputsConfigError, match=error.replace("*", r"\*")):
        parse_safe_outputs(config)


def test_the_tool_tells_the_agent_where_its_items_go(tmp_path: Path) -> None:
    from aw_action.safe_outputs import safe_output_tools

    tools = {
        t.name: t
        for t in safe_output_tools(
            {"add-comment": THERE, "create-issue": {"target-repo": "octo/hello"}}, tmp_path / "o", tmp_path, env={}
        )
    }
    assert "Name the issue or pull request in octo/hello with item_number." in tools["add_comment"].description
    assert "It is opened in octo/hello." in tools["create_issue"].description


def test_hide_comment_hides_only_in_the_target_repo(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    fake.add_comment(1, "spam", author="spammer")
    fake.add_comment(1, "home's own", author="octo-human")
    fake.comments[1][1]["_repository"] = "octo/home"  # a node ID of the job's own repository
    nodes = [c["node_id"] for c in fake.comments[1]]
    config = {"hide-comment": {"target-repo": "octo/hello", "max": 2}}
    record(tmp_path, config, *[("hide_comment", {"comment_id": node}) for node in nodes])
    run = apply(tmp_path, fake, capsys, **HOME)
    assert run.statuses() == ["applied", "failed"], run.report
    assert "is in octo/home, not octo/hello" in run.report["items"][1]["error"]
    assert fake.calls("GET", "^/repos/octo/hello$")
    assert fake.comments[1][0].get("_minimized") == "SPAM" and "_minimized" not in fake.comments[1][1]
