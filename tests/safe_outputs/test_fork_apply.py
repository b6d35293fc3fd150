"""A fork's pull request (issue 34 item 4): records from a run a fork's code could control are
untrusted, by GitHub's record of that run (the fake's ``GET /actions/runs/{id}``), never by the
artifact's files. Untrusted records apply only with the repository's own config (``--config``
outside the artifact) and never with ``APPROVE`` or ``REQUEST_CHANGES``: the line comments still
go out, in a ``COMMENT`` review. PyGithub against the fake, on the real diff of ``pr_fixture``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.apply_outputs import apply_cli
from aw_action.safe_outputs.config import CONFIG_FILE
from tests.safe_outputs import pr_fixture
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_review import COMMENT, REVIEW, REVIEWS_PATH, TOKEN, apply, record

BASE_CONFIG: dict[str, Any] = {
    "create-pull-request-review-comment": None,
    "submit-pull-request-review": {"allowed-events": ["APPROVE", "REQUEST_CHANGES"]},
}
CALLS = (
    (COMMENT, {"path": "app.txt", "line": 10, "body": "Why a new line here?"}),
    (REVIEW, {"body": "Looks good", "event": "APPROVE"}),
)
RUN = 4242


def base_config(tmp: Path) -> Path:
    """The base ref's config, checked out by the apply job (outside the artifact)."""
    path = tmp / "base" / "config.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"safe-outputs": BASE_CONFIG}))
    return path


def run(tmp: Path, fake: FakeGitHub, pr: pr_fixture.PullFixture, capsys: Any, *args: str, **env: str) -> Any:
    extra = {"GITHUB_EVENT_NAME": "pull_request_target", "GITHUB_RUN_ID": str(RUN), **env}
    return apply(tmp, fake, pr, capsys, *args, **extra)


@pytest.mark.parametrize(
    ("origin", "reason"),
    [
        ({"event": "pull_request_target", "head_repository": "octo/hello"}, "is a pull_request_target run"),
        ({"event": "pull_request", "head_repository": "stranger/hello"}, "ran the code of stranger/hello, a fork's"),
        ({"event": "pull_request", "head_repository": None}, "ran the code of a deleted repository"),
        (None, "could not be looked up (GitHub answered 404)"),
    ],
)
def test_an_approval_from_a_fork_controlled_run_is_not_applied_but_its_comments_are(
    tmp_path: Path, pr: pr_fixture.PullFixture, fake: FakeGitHub, capsys: Any, origin: Any, reason: str
) -> None:
    if origin is not None:
        fake.runs[RUN] = origin
    record(tmp_path, pr, BASE_CONFIG, *CALLS)
    code, report, summary = run(tmp_path, fake, pr, capsys, "--config", str(base_config(tmp_path)))
    assert fake.calls("GET", f"^/repos/octo/hello/actions/runs/{RUN}$"), "GitHub's record of the run was read"
    assert reason in report["untrusted"]
    assert code == 1
    (post,) = fake.calls("POST", "^/repos/")
    assert post.path == REVIEWS_PATH and post.body["event"] == "COMMENT"
    assert [c["line"] for c in post.body["comments"]] == [10]
    review = report["items"][1]
    assert review["status"] == "refused" and review["error"].startswith(
        "APPROVE not applied: the records are untrusted"
    )
    assert [r["state"] for r in fake.reviews[1]] == ["COMMENTED"]
    assert "Untrusted records:" in summary and "only COMMENT reviews apply" in summary
    dry = run(tmp_path, fake, pr, capsys, "--config", str(base_config(tmp_path)), "--dry-run")
    assert dry[1]["items"][1]["status"] == "refused" and dry[1]["untrusted"]


def test_the_repository_s_own_run_is_trusted_and_its_approval_applies(
    tmp_path: Path, pr: pr_fixture.PullFixture, fake: FakeGitHub, capsys: Any
) -> None:
    fake.runs[RUN] = {"event": "pull_request", "head_repository": "octo/hello"}
    record(tmp_path, pr, BASE_CONFIG, *CALLS)
    code, report, _ = run(tmp_path, fake, pr, capsys, GITHUB_EVENT_NAME="pull_request")
    assert code == 0, report
    assert "untrusted" not in report
    assert [r["state"] for r in fake.reviews[1]] == ["APPROVED"]


def test_untrusted_records_need_the_base_ref_s_config_not_their_own(
    tmp_path: Path, pr: pr_fixture.PullFixture, fake: FakeGitHub, capsys: Any
) -> None:
    fake.runs[RUN] = {"event": "pull_request_target", "head_repository": "octo/hello"}
    record(tmp_path, pr, BASE_CONFIG, *CALLS)
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": "octo/hello",
        "GITHUB_RUN_ID": str(RUN),
        "GITHUB_EVENT_NAME": "pull_request_target",
    }
    out = str(tmp_path / "out")
    assert apply_cli.main([out], env) == 2
    err = capsys.readouterr().err
    assert "the records are untrusted (run 4242 is a pull_request_target run" in err
    assert "pass --config with the base ref's config" in err and TOKEN not in err
    inside = tmp_path / "out" / CONFIG_FILE
    assert apply_cli.main([out, "--config", str(inside)], env) == 2
    assert "is inside their artifact; use the base ref's" in capsys.readouterr().err
    assert fake.calls("POST", "^/repos/") == []


def test_a_push_run_is_not_looked_up(tmp_path: Path, pr: pr_fixture.PullFixture, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, pr, BASE_CONFIG, *CALLS)
    code, report, _ = run(tmp_path, fake, pr, capsys, GITHUB_EVENT_NAME="push")
    assert code == 0 and "untrusted" not in report
    assert fake.calls("GET", "/actions/runs/") == []


def test_a_workflow_run_event_names_the_run_and_from_run_overrides(
    tmp_path: Path, pr: pr_fixture.PullFixture, fake: FakeGitHub, capsys: Any
) -> None:
    fake.runs[77] = {"event": "pull_request", "head_repository": "stranger/hello"}
    fake.runs[88] = {"event": "pull_request", "head_repository": "octo/hello"}
    record(tmp_path, pr, BASE_CONFIG, *CALLS)
    wr_event = tmp_path / "wr.json"
    pull = {"number": 1, "head": {"sha": pr.head}}
    wr_event.write_text(json.dumps({"workflow_run": {"id": 77}, "pull_request": pull}))
    config = str(base_config(tmp_path))
    env = {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(wr_event)}
    _, report, _ = run(tmp_path, fake, pr, capsys, "--config", config, "--dry-run", **env)
    assert "run 77 ran the code of stranger/hello" in report["untrusted"]
    _, report, _ = run(tmp_path, fake, pr, capsys, "--config", config, "--from-run", "88", "--dry-run", **env)
    assert "untrusted" not in report and report["items"][1]["status"] == "planned"
