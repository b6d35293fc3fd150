"""``push_to_pull_request_branch`` through the agent's tools (a real git patch of the working tree)
and PyGithub against the fake GitHub: one commit on the pull request's head with the patch
applied, the branch moved without force; re-apply finds the head carrying the marker and writes
nothing; a fork's branch, a head that moved, a closed or unlabelled pull request and an issue are
refused before any write; ``max`` and the same-repository rule held; the message made inert."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolError
from aw_action.safe_outputs.config import SafeOutputsConfigError, parse_safe_outputs
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.support import make_repo
from tests.safe_outputs.test_apply import apply, record

KIND = "push_to_pull_request_branch"
CONFIG: dict[str, Any] = {"push-to-pull-request-branch": {"labels": ["agent-ok"]}}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "ws")


@pytest.fixture
def fake(repo: Path) -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    head = server.seed_from_git(repo)
    server.refs["heads/feature"] = head
    assert server.add_pull([], head, head="feature") == 1  # the triggering item
    server.issues[1]["labels"] = [{"name": "agent-ok"}]
    yield server
    server.close()


def _writes(fake: FakeGitHub) -> list[tuple[str, str]]:
    return [(r.method, r.path) for r in fake.requests if r.method != "GET" and r.path.startswith("/repos/")]


def _record(tmp_path: Path, repo: Path, message: str = "Fix the greeting") -> None:
    (repo / "README.md").write_text("# Hello, world\n\nline two\n")
    record(tmp_path, CONFIG, (KIND, {"message": message}), workspace=repo)


def test_pushes_one_commit_on_the_head_once(tmp_path: Path, repo: Path, fake: FakeGitHub, capsys: Any) -> None:
    head = fake.refs["heads/feature"]
    _record(tmp_path, repo, "Fix the greeting, closes #3 for @bob\n\nSee <script>x</script> details")
    dry = apply(tmp_path, fake, capsys, "--dry-run")
    (planned,) = dry.report["items"]
    assert planned["status"] == "planned" and planned["base_commit"] == head and planned["number"] == 1
    assert fake.requests == []
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["applied"], run.report
    new = fake.refs["heads/feature"]
    assert new != head and fake.commits[new]["parents"] == [head]
    assert run.report["items"][0]["commit"] == new and run.report["items"][0]["branch"] == "feature"
    message = fake.commits[new]["message"]
    assert message.startswith("Fix the greeting, `closes` #3 for `@bob`") and "<script" not in message
    assert "aw-harness-safe-output" in message
    assert fake.files_at("feature")["README.md"][1] == b"# Hello, world\n\nline two\n"
    (ref_update,) = fake.calls("PATCH", "/git/refs/heads/feature")
    assert ref_update.body["force"] is False
    writes = len(_writes(fake))
    again = apply(tmp_path, fake, capsys)
    assert again.code == 0 and again.statuses() == ["exists"] and len(_writes(fake)) == writes


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda f: f.issues[1].update(_head_repo="stranger/hello"), "#1's branch is in stranger/hello, not octo/hello"),
        (lambda f: f.issues[1].update(labels=[]), "#1 lacks the required label(s) agent-ok"),
        (lambda f: f.issues[1].update(state="closed"), "#1 is closed"),
        (lambda f: f.issues[1].pop("pull_request"), "#1 is an issue, not a pull request"),
    ],
)
def test_refused_before_any_write(
    tmp_path: Path, repo: Path, fake: FakeGitHub, capsys: Any, change: Any, reason: str
) -> None:
    _record(tmp_path, repo)
    change(fake)
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and reason in run.report["items"][0]["error"]
    assert _writes(fake) == []


def test_a_head_that_moved_is_not_pushed_to(tmp_path: Path, repo: Path, fake: FakeGitHub, capsys: Any) -> None:
    _record(tmp_path, repo)
    base = fake.refs["heads/feature"]
    fake.commits["b" * 40] = {"tree": fake.commits[base]["tree"], "parents": [base], "message": "someone else"}
    fake.refs["heads/feature"] = "b" * 40
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and "the head of #1 moved" in run.report["items"][0]["error"]
    assert _writes(fake) == [] and fake.refs["heads/feature"] == "b" * 40


def test_max_and_the_same_repository_rule(tmp_path: Path, repo: Path, fake: FakeGitHub) -> None:
    (repo / "README.md").write_text("changed\n")
    with pytest.raises(ToolError, match="limit reached: 1 of 1 push_to_pull_request_branch"):
        record(tmp_path, CONFIG, (KIND, {"message": "a"}), (KIND, {"message": "b", "branch": "two"}), workspace=repo)
    with pytest.raises(SafeOutputsConfigError, match="target-repo is not supported: only a branch of this repository"):
        parse_safe_outputs({"push-to-pull-request-branch": {"target-repo": "octo/other", "target": "*"}})
