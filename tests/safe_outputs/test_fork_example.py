"""examples/pr-review/fork-workflow.yml, the documented pattern for a fork's pull request: the
agent job on ``pull_request_target`` with the head checked out as data, the trigger guard on and
no write permission, and a separate apply job; then that apply job's step run against the fake
GitHub, whose record of the run says ``pull_request_target``: the base branch's config sets the
limits (the artifact's copy, which allows approvals, is ignored) and no approval is applied."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from aw_action.apply_outputs import apply_cli
from aw_action.safe_outputs.config import parse_safe_outputs, write_config_file
from aw_action.safe_outputs.records import RECORDS_FILE
from tests.action.launch import declared_inputs
from tests.safe_outputs import pr_fixture
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_review import TOKEN

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "pr-review"


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load((EXAMPLE / "fork-workflow.yml").read_text())
    return data


def _step(job: dict[str, Any], uses: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(uses)]


def test_the_agent_job_reads_the_fork_as_data_and_cannot_write() -> None:
    workflow = _workflow()
    assert workflow["on"] == {"pull_request_target": {"types": ["labeled"]}}
    assert workflow["permissions"] == {}
    review, apply = workflow["jobs"]["review"], workflow["jobs"]["apply"]
    assert set(review["permissions"].values()) == {"read"}
    base, head = _step(review, "actions/checkout@")
    assert "ref" not in base["with"] and base["with"]["persist-credentials"] is False, "the base branch"
    assert head["with"]["ref"] == "${{ github.event.pull_request.head.sha }}"
    assert head["with"]["path"] == "pr-head" and head["with"]["persist-credentials"] is False
    (agent,) = _step(review, "org/aw-harness")
    guard = {"allowed-actor-roles", "allowed-bots", "github-token"}
    assert not guard & set(agent["with"]), "the trigger guard keeps its defaults (write access)"
    assert set(agent["with"]) <= set(declared_inputs())
    for key in ("config", "prompt-file"):
        assert (REPO / agent["with"][key]).is_file()
        assert not agent["with"][key].startswith("pr-head"), "the base branch's files, never the head's"
    config = json.loads((REPO / agent["with"]["config"]).read_text())
    assert not {"python", "make", "npm", "bash", "sh"} & set(config["tools"]["bash"]), "nothing of the head runs"
    assert apply["needs"] == "review"
    assert apply["permissions"] == {"actions": "read", "contents": "read", "pull-requests": "write"}
    (download,) = _step(apply, "actions/download-artifact@")
    assert download["with"]["name"] == agent["with"]["artifact-name"]
    (applying,) = _step(apply, "org/aw-harness")
    assert applying["with"] == {
        "mode": "apply",
        "safe-outputs-path": download["with"]["path"],
        "config": agent["with"]["config"],
    }
    (checkout,) = _step(apply, "actions/checkout@")
    assert checkout["with"]["sparse-checkout"] == applying["with"]["config"] and "ref" not in checkout["with"]


@pytest.fixture
def fake(fake: FakeGitHub) -> FakeGitHub:
    """The shared pull request (conftest.py), with the run GitHub records for the fork's workflow."""
    fake.runs[7001] = {"event": "pull_request_target", "head_repository": "octo/hello"}
    return fake


def test_the_apply_job_applies_a_fork_run_s_records_as_untrusted(
    tmp_path: Path, pr: pr_fixture.PullFixture, fake: FakeGitHub, capsys: Any
) -> None:
    artifact = tmp_path / "pr-review-artifact"
    hostile = {
        "submit-pull-request-review": {"allowed-events": ["APPROVE"]},
        "create-pull-request-review-comment": None,
    }
    write_config_file(artifact, parse_safe_outputs(hostile))  # what the fork's run left beside its records
    lines = [
        {
            "type": "create_pull_request_review_comment",
            "path": "app.txt",
            "line": 10,
            "body": "Nice",
            "commit_id": pr.head,
        },
        {"type": "submit_pull_request_review", "event": "APPROVE", "body": "Ship it", "commit_id": pr.head},
    ]
    (artifact / RECORDS_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"action": "labeled", "pull_request": {"number": 1, "head": {"sha": pr.head}}}))
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": "octo/hello",
        "GITHUB_RUN_ID": "7001",
        "GITHUB_EVENT_NAME": "pull_request_target",
        "GITHUB_EVENT_PATH": str(event),
        "AW_GITHUB_WRITE_INTERVAL_MS": "0",
    }
    code = apply_cli.main([str(artifact), "--config", str(EXAMPLE / "config.json")], env, sleep=lambda s: None)
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert code == 1
    assert "run 7001 is a pull_request_target run" in report["untrusted"]
    assert "APPROVE is not allowed" in report["items"][1]["error"], "the base branch's limits, not the artifact's"
    assert [r["state"] for r in fake.reviews[1]] == ["COMMENTED"]
    assert [c["line"] for c in fake.reviews[1][0]["_comments"]] == [10]
