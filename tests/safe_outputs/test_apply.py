"""``aw-harness apply-safe-outputs`` with PyGithub against a local fake GitHub REST server:
the exact requests, the idempotency marker on a re-run, rate-limit retries, a failing record
that does not stop the others, dry runs, exit codes, and no token in anything it prints."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext
from aw_action.apply_outputs import apply_cli
from aw_action.safe_outputs import safe_output_tools
from aw_action.safe_outputs.config import parse_safe_outputs, write_config_file
from aw_action.safe_outputs.records import RECORDS_FILE
from tests.github.runner_sim import parse_file_command
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.support import call, git, make_repo, tools_by_name

REPO = Path(__file__).resolve().parents[2]
TOKEN = "ghs_ApplyJobWriteToken0123456789abcd"
MARKER = re.compile(r"<!-- aw-harness-safe-output: run=4242 record=[0-9a-f]{16} -->")
CONFIG: dict[str, Any] = {
    "create-issue": {"title-prefix": "[bot] ", "labels": ["automated"], "allowed-labels": ["bug"], "max": 2},
    "add-comment": {"max": 2},
    "add-labels": {"allowed": ["bug", "needs-info"], "max": 1},
    "create-pull-request": {"title-prefix": "[pr] ", "labels": ["agent"]},
    "noop": None,
}


@dataclass
class Run:
    code: int
    report: dict[str, Any]
    stderr: str
    summary: str
    outputs: dict[str, str]
    sleeps: list[float]

    def statuses(self) -> list[str]:
        return [i["status"] for i in self.report["items"]]


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("The triggering issue")  # #1
    yield server
    server.close()


def env_for(tmp: Path, fake: FakeGitHub, **extra: str) -> dict[str, str]:
    event = tmp / "event.json"
    event.write_text(json.dumps({"action": "opened", "issue": {"number": 1}}))
    for name in ("summary.md", "output.txt"):
        (tmp / name).touch()
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": "octo/hello",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary.md"),
        "GITHUB_OUTPUT": str(tmp / "output.txt"),
        "AW_GITHUB_WRITE_INTERVAL_MS": "0",
    }
    return {**env, **extra}


def apply(tmp: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str], *args: str, **env: str) -> Run:
    sleeps: list[float] = []
    for name in ("summary.md", "output.txt"):
        (tmp / name).write_text("")
    code = apply_cli.main([str(tmp / "out"), *args], env_for(tmp, fake, **env), sleep=sleeps.append)
    out, err = capsys.readouterr()
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    outputs = parse_file_command((tmp / "output.txt").read_text())
    return Run(code, json.loads(lines[0]), err, (tmp / "summary.md").read_text(), outputs, sleeps)


def record(
    tmp: Path, config: dict[str, Any], *calls: tuple[str, dict[str, Any]], workspace: Path | None = None
) -> None:
    """Record through the agent's tools, as a run would."""
    ws = workspace or tmp
    ctx = ToolContext(cwd=ws, output_dir=tmp / "out")
    tools = tools_by_name(safe_output_tools(config, ctx.output_dir, ws, env={}))

    async def go() -> None:
        for name, args in calls:
            await call(tools[name], args, ctx)

    asyncio.run(go())


def hand_written(tmp: Path, config: dict[str, Any], *lines: Any) -> None:
    """Records written straight into the file, as a hostile agent with bash could."""
    write_config_file(tmp / "out", parse_safe_outputs(config))
    with open(tmp / "out" / RECORDS_FILE, "a") as handle:
        for line in lines:
            handle.write((line if isinstance(line, str) else json.dumps(line)) + "\n")


def test_create_issue_sends_exactly_the_expected_requests(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    body = "Crash on start. Ping @alice <!-- hidden note --> see https://evil.example/x"
    record(tmp_path, CONFIG, ("create_issue", {"title": "Crash", "body": body, "labels": ["bug"]}))
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0, run.report
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/repos/octo/hello/issues"),
        ("POST", "/repos/octo/hello/issues"),
    ]
    listing, create = fake.requests
    assert listing.query == {"state": "all", "sort": "created", "direction": "desc", "per_page": "100"}
    assert create.authorization == f"token {TOKEN}"
    assert create.body["title"] == "[bot] Crash"
    assert create.body["labels"] == ["automated", "bug"]
    sent = create.body["body"]
    assert sent.startswith(
        "Crash on start. Ping <code>@alice</code>  see (evil.example/redacted)\n\n> Generated by an AI agent"
    )
    assert "hidden note" not in sent and len(MARKER.findall(sent)) == 1
    assert "[workflow run 4242](https://github.com/octo/hello/actions/runs/4242)" in sent
    (item,) = run.report["items"]
    assert item == {
        "line": 1,
        "type": "create_issue",
        "title": "[bot] Crash",
        "status": "created",
        "url": fake.issues[2]["html_url"],
        "number": 2,
    }


def test_a_rerun_finds_every_item_by_its_marker_and_creates_nothing(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    record(
        tmp_path,
        CONFIG,
        ("create_issue", {"title": "One", "body": "b"}),
        ("add_comment", {"body": "Thanks for the report"}),
        ("add_labels", {"labels": ["needs-info"]}),
        ("noop", {"message": "checked"}),
    )
    first = apply(tmp_path, fake, capsys)
    assert first.statuses() == ["created", "created", "applied", "noted"], first.report
    writes = len(fake.calls("POST", "^/repos/"))
    second = apply(tmp_path, fake, capsys)
    assert second.code == 0
    assert second.statuses() == ["exists", "exists", "applied", "noted"]
    assert [i.get("url") for i in second.report["items"]] == [i.get("url") for i in first.report["items"]]
    assert len(fake.calls("POST", "^/repos/")) == writes + 1  # only the (idempotent) add-labels call again
    assert len(fake.calls(None, "^/user$|^/graphql$")) == 2  # who this token is, asked once
    assert len(fake.issues) == 2 and len(fake.comments[1]) == 1
    assert [label["name"] for label in fake.issues[1]["labels"]] == ["needs-info"]


def test_a_new_run_id_is_a_new_item(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "One", "body": "b"}))
    apply(tmp_path, fake, capsys)
    again = apply(tmp_path, fake, capsys, GITHUB_RUN_ID="4243")
    assert again.statuses() == ["created"] and len(fake.issues) == 3


def test_comment_and_labels_go_to_the_triggering_issue(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("add_comment", {"body": "Hi @bob"}), ("add_labels", {"labels": ["bug"]}))
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/repos/octo/hello/issues/1/comments"),
        ("POST", "/repos/octo/hello/issues/1/comments"),
        ("POST", "/repos/octo/hello/issues/1/labels"),
    ]
    assert fake.requests[1].body["body"].startswith("Hi <code>@bob</code>\n\n> Generated")
    assert fake.requests[2].body == ["bug"]


def test_another_run_applying_the_same_record_never_moves_the_earlier_run_s_branch(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    """The head branch ended in the record's hash alone: a second run applying the same record
    (or a record made to match 32 bits of an earlier one) found the earlier run's branch,
    force-moved it over what a maintainer had pushed there and took its pull request as its own
    (found by review). The branch is now this run's item's: another run gets another branch."""
    repo = make_repo(tmp_path / "ws")
    fake.seed_from_git(repo)
    (repo / "README.md").write_text("# Hello\n\nedited\n")
    record(tmp_path, CONFIG, ("create_pull_request", {"title": "Fix", "body": "b", "branch": "fix"}), workspace=repo)
    first = apply(tmp_path, fake, capsys, GITHUB_RUN_ID="1001")
    second = apply(tmp_path, fake, capsys, GITHUB_RUN_ID="2002")
    (one,), (two,) = first.report["items"], second.report["items"]
    assert one["status"] == two["status"] == "created", (first.report, second.report)
    assert one["branch"] != two["branch"] and one["url"] != two["url"]
    assert [r for r in fake.requests if r.method == "PATCH" and "/git/refs/heads/" in r.path] == []


def test_no_triggering_item_refuses_the_record(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("add_comment", {"body": "Hi"}))
    event = tmp_path / "schedule.json"
    event.write_text(json.dumps({"schedule": "0 9 * * 1"}))
    run = apply(tmp_path, fake, capsys, GITHUB_EVENT_PATH=str(event))
    assert run.code == 1 and run.statuses() == ["refused"]
    assert "no triggering issue or pull request" in run.report["items"][0]["error"]
    assert fake.requests == []


def test_pull_request_goes_through_the_git_data_api(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    repo = make_repo(tmp_path / "ws")
    base = fake.seed_from_git(repo)
    (repo / "README.md").write_text("# Hello\n\nedited\n")
    (repo / "old.txt").unlink()
    (repo / "logo.bin").write_bytes(bytes(range(255, -1, -1)) * 3)
    (repo / "tool.sh").write_text("#!/bin/sh\n")
    (repo / "tool.sh").chmod(0o755)
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("new\n")
    args = {"title": "Improve docs", "body": "Closes nothing", "labels": ["docs"], "branch": "docs/improve"}
    record(tmp_path, CONFIG, ("create_pull_request", args), workspace=repo)

    run = apply(tmp_path, fake, capsys)
    assert run.code == 0, run.report
    (item,) = run.report["items"]
    head = item["branch"]
    assert re.fullmatch(r"aw-harness/docs/improve-[0-9a-f]{16}", head)
    assert item["base"] == "main" and item["status"] == "created"

    calls = [(r.method, re.sub(r"[0-9a-f]{40}", "SHA", r.path)) for r in fake.requests]
    assert calls[:4] == [
        ("GET", "/repos/octo/hello/issues"),
        ("GET", "/repos/octo/hello"),
        ("GET", "/repos/octo/hello/git/commits/SHA"),
        ("GET", "/repos/octo/hello/git/trees/SHA"),
    ]
    assert fake.requests[3].query == {"recursive": "1"}
    fetched = {r.path.rsplit("/", 1)[1] for r in fake.calls("GET", "/git/blobs/")}
    base_files = fake.trees[fake.commits[base]["tree"]]
    assert fetched == {base_files[p][1] for p in ("README.md", "old.txt", "logo.bin")}
    assert len(fake.calls("POST", "/git/blobs$")) == 4  # README, logo.bin, tool.sh, guide.md
    (tree_call,) = fake.calls("POST", "/git/trees$")
    assert tree_call.body["base_tree"] == fake.commits[base]["tree"]
    assert {"path": "old.txt", "mode": "100644", "type": "blob", "sha": None} in tree_call.body["tree"]
    assert {e["path"]: e["mode"] for e in tree_call.body["tree"]}["tool.sh"] == "100755"
    (commit_call,) = fake.calls("POST", "/git/commits$")
    assert commit_call.body["parents"] == [base] and commit_call.body["message"] == "[pr] Improve docs"
    (ref_call,) = fake.calls("POST", "/git/refs$")
    assert ref_call.body == {"ref": f"refs/heads/{head}", "sha": fake.refs[f"heads/{head}"]}
    (pull_call,) = fake.calls("POST", "/pulls$")
    assert {k: pull_call.body[k] for k in ("base", "head", "title", "draft")} == {
        "base": "main",
        "head": head,
        "title": "[pr] Improve docs",
        "draft": True,
    }
    assert MARKER.search(pull_call.body["body"])
    (labels_call,) = fake.calls("POST", "/labels$")
    assert labels_call.body == ["agent", "docs"]

    expected = {}
    for path in sorted(repo.rglob("*")):
        rel = path.relative_to(repo)
        if path.is_file() and rel.parts[0] != ".git":
            expected[str(rel)] = ("100755" if path.stat().st_mode & 0o100 else "100644", path.read_bytes())
    assert fake.files_at(head) == expected
    assert git(repo, "status", "--porcelain")  # the agent's checkout still holds its uncommitted edits

    again = apply(tmp_path, fake, capsys)
    assert again.statuses() == ["exists"] and again.report["items"][0]["url"] == item["url"]
    assert len(fake.calls("POST", "/git/")) == 7  # nothing pushed twice


def test_a_pull_request_whose_base_is_unknown_fails_alone(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    repo = make_repo(tmp_path / "ws")  # not seeded: the fake has no such commit
    (repo / "README.md").write_text("x\n")
    record(
        tmp_path,
        CONFIG,
        ("create_pull_request", {"title": "t", "body": "b"}),
        ("noop", {"message": "m"}),
        workspace=repo,
    )
    run = apply(tmp_path, fake, capsys, GITHUB_BASE_REF="main")
    assert run.code == 1 and run.statuses() == ["failed", "noted"]
    assert "is not in octo/hello" in run.report["items"][0]["error"]


def test_rate_limit_retry_honours_retry_after_and_looks_up_again(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "One", "body": "b"}))
    fake.fail("POST", r"/issues$", 403, {"Retry-After": "7"}, message="You have exceeded a secondary rate limit")
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.sleeps == [7.0]
    assert [(r.method, r.path) for r in fake.requests] == [
        ("GET", "/repos/octo/hello/issues"),
        ("POST", "/repos/octo/hello/issues"),
    ] * 2
    assert len(fake.issues) == 2


def test_a_create_that_answered_5xx_but_happened_is_found_not_repeated(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "One", "body": "b"}))
    fake.fail("POST", r"/issues$", 502, after=True)
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["exists"] and run.sleeps == [1.0]
    assert len(fake.calls("POST", r"/issues$")) == 1 and len(fake.issues) == 2


def test_a_pull_request_interrupted_after_its_branch_is_finished_by_the_rerun(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    repo = make_repo(tmp_path / "ws")
    fake.seed_from_git(repo)
    (repo / "README.md").write_text("changed\n")
    record(tmp_path, CONFIG, ("create_pull_request", {"title": "t", "body": "b"}), workspace=repo)
    fake.fail("POST", r"/pulls$", 403, message="Resource not accessible by integration")
    first = apply(tmp_path, fake, capsys)
    assert first.statuses() == ["failed"] and "Resource not accessible" in first.report["items"][0]["error"]
    second = apply(tmp_path, fake, capsys)
    assert second.statuses() == ["created"]
    (moved,) = fake.calls("PATCH", "/git/refs/heads/aw-harness/")  # the branch the first run made
    assert moved.body["force"] is True
    head = second.report["items"][0]["branch"]
    assert fake.refs[f"heads/{head}"] == moved.body["sha"] == second.report["items"][0]["commit"]
    assert len([i for i in fake.issues.values() if "pull_request" in i]) == 1


def test_primary_rate_limit_waits_until_the_reset(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("add_comment", {"body": "hi"}))
    reset = str(int(time.time()) + 30)
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset}
    fake.fail("GET", r"/comments$", 429, headers, message="API rate limit exceeded")
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and len(run.sleeps) == 1 and 25 <= run.sleeps[0] <= 32


def test_server_errors_back_off_and_succeed(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("add_labels", {"labels": ["bug"]}))
    fake.fail("POST", r"/labels$", 502, times=2)
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.sleeps == [1.0, 2.0]


def test_a_wait_past_the_budget_fails_the_record_and_the_rest_still_apply(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "One", "body": "b"}), ("add_comment", {"body": "c"}))
    fake.fail("POST", r"/issues$", 403, {"Retry-After": "3600"}, message="You have exceeded a secondary rate limit")
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.sleeps == []
    assert run.statuses() == ["failed", "created"]
    assert run.report["items"][0]["error"].startswith("GitHub answered 403: You have exceeded a secondary rate limit")
    assert run.outputs["failed-count"] == "1" and run.outputs["applied-count"] == "1"


def test_a_failing_record_does_not_stop_the_others(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    cfg = {**CONFIG, "add-comment": {"target": "*", "max": 2}}
    record(
        tmp_path,
        cfg,
        ("add_comment", {"body": "to a missing issue", "item_number": 99}),
        ("create_issue", {"title": "Still made", "body": "b"}),
        ("add_comment", {"body": "to #1", "item_number": 1}),
    )
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1
    assert run.statuses() == ["failed", "created", "created"]
    assert "GitHub answered 404" in run.report["items"][0]["error"]
    assert "line 1 add_comment: failed" in run.stderr


def test_outputs_and_summary_report_the_created_urls(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "One", "body": "b"}), ("add_comment", {"body": "c"}))
    run = apply(tmp_path, fake, capsys)
    urls = [i["url"] for i in run.report["items"]]
    assert run.outputs["created-urls"].splitlines() == urls
    assert [i["url"] for i in json.loads(run.outputs["created-items"])] == urls
    assert run.outputs["failed-count"] == "0" and run.outputs["applied-count"] == "2"
    assert run.summary.startswith("### Safe outputs\n")
    for url in urls:
        assert url in run.summary


def test_dry_run_prints_the_planned_items_and_changes_nothing(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "Crash", "body": "b @x", "labels": ["bug"]}))
    env = env_for(tmp_path, fake)
    del env["GITHUB_TOKEN"]  # a dry run needs none
    code = apply_cli.main([str(tmp_path / "out" / RECORDS_FILE), "--dry-run"], env)
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and fake.requests == []
    assert report["dry_run"] is True
    (item,) = report["items"]
    assert item["status"] == "planned" and item["title"] == "[bot] Crash" and item["labels"] == ["automated", "bug"]
    assert item["body"].startswith("b <code>@x</code>") and MARKER.search(item["body"])


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        (
            [{"type": "create_issue", "title": "t", "body": "b", "labels": ["wontfix"]}],
            "label 'wontfix' is not allowed",
        ),
        ([{"type": "upload_asset", "path": "/tmp/x.png"}], "unknown safe output type 'upload_asset'"),
        ([{"type": "add_comment", "body": "b", "item_number": 5}], "item_number: not allowed"),
        (['{"type": "create_issue", "title": "torn'], "line 1: not valid JSON"),
        (["[1, 2]"], "not a record"),
        ([{"type": "create_issue", "title": "t\nt", "body": "b"}], "title: must be one line"),
        (
            [
                {
                    "type": "create_pull_request",
                    "title": "t",
                    "body": "b",
                    "patch_path": "../../etc/passwd",
                    "base_commit": "a" * 40,
                }
            ],
            "is not a patch file name",
        ),
        (
            [
                {
                    "type": "create_pull_request",
                    "title": "t",
                    "body": "b",
                    "patch_path": "aw-missing.patch",
                    "base_commit": "a" * 40,
                }
            ],
            "aw-missing.patch is missing",
        ),
        (
            [{"type": "create_pull_request", "title": "t", "body": "b"}],
            "missing; a create_pull_request record needs the patch",
        ),
    ],
)
def test_records_are_checked_again(tmp_path: Path, fake: FakeGitHub, capsys: Any, lines: list[Any], error: str) -> None:
    hand_written(tmp_path, CONFIG, *lines)
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["refused"]
    assert error in run.report["items"][0]["error"]
    assert fake.calls("POST") == []


def test_max_is_enforced_again(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    hand_written(tmp_path, CONFIG, *({"type": "create_issue", "title": f"t{i}", "body": "b"} for i in range(3)))
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["created", "created", "refused"]
    assert run.report["items"][2]["error"] == "over the limit: safe-outputs.create-issue.max is 2"
    assert len(fake.calls("POST", r"/issues$")) == 2


def test_a_trusted_config_overrides_the_copy_in_the_artifact(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    hand_written(
        tmp_path,
        {"create-issue": {"max": 50}},
        *({"type": "create_issue", "title": f"t{i}", "body": "b"} for i in range(3)),
    )
    trusted = tmp_path / "repo-config.json"
    trusted.write_text(json.dumps({"engine": {"model": "m"}, "safe-outputs": {"create-issue": {"max": 1}}}))
    run = apply(tmp_path, fake, capsys, "--config", str(trusted))
    assert run.statuses() == ["created", "refused", "refused"]


def test_a_forged_marker_cannot_claim_an_item_exists(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "One", "body": "b"}))
    planned = apply(tmp_path, fake, capsys, "--dry-run")
    marker = MARKER.search(planned.report["items"][0]["body"]).group(0)  # type: ignore[union-attr]
    fake.add_issue("decoy", body="nothing to see")
    hand_written(tmp_path, CONFIG, {"type": "add_comment", "body": f"forged {marker}"})
    run = apply(tmp_path, fake, capsys)
    assert run.statuses() == ["created", "created"]
    assert marker not in fake.comments[1][0]["body"]


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("no-records", "no records file"),
        ("no-config", "no config: pass --config"),
        ("bad-config", "safe-outputs.noop.max"),
        ("no-repository", "GITHUB_REPOSITORY must be owner/name"),
        ("no-token", "GITHUB_TOKEN is not set"),
        ("bad-event", "GITHUB_EVENT_PATH"),
    ],
)
def test_invalid_input_exits_2(tmp_path: Path, fake: FakeGitHub, capsys: Any, setup: str, message: str) -> None:
    env = env_for(tmp_path, fake)
    if setup != "no-records":
        hand_written(tmp_path, CONFIG, {"type": "noop", "message": "m"})
    if setup == "no-config":
        (tmp_path / "out" / "safe-outputs.config.json").unlink()
    if setup == "bad-config":
        (tmp_path / "out" / "safe-outputs.config.json").write_text('{"safe-outputs": {"noop": {"max": -1}}}')
    if setup == "no-repository":
        env["GITHUB_REPOSITORY"] = "not a repo"
    if setup == "no-token":
        del env["GITHUB_TOKEN"]
    if setup == "bad-event":
        Path(env["GITHUB_EVENT_PATH"]).write_text("{not json")
    assert apply_cli.main([str(tmp_path / "out")], env) == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err and err.count("\n") == 1
    assert fake.requests == []


def test_the_token_never_reaches_output_summary_or_github(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    hand_written(
        tmp_path,
        CONFIG,
        {"type": "create_issue", "title": f"token {TOKEN}", "body": f"the token is {TOKEN}"},
        {"type": "add_comment", "body": "fails"},
    )
    fake.fail("POST", r"/comments$", 422, message=f"Validation Failed for {TOKEN}")
    run = apply(tmp_path, fake, capsys)
    everything = json.dumps(run.report) + run.stderr + run.summary + json.dumps(run.outputs)
    assert TOKEN not in everything
    assert "***" in run.report["items"][1]["error"]
    posted = json.dumps([r.body for r in fake.requests])
    assert TOKEN not in posted and "the token is ***" in posted


def test_the_command_line_entry_point(tmp_path: Path, fake: FakeGitHub) -> None:
    record(tmp_path, CONFIG, ("create_issue", {"title": "Via CLI", "body": "b"}))
    env = {**env_for(tmp_path, fake), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "aw_action", "apply-safe-outputs", str(tmp_path / "out")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["items"][0]["status"] == "created"
    assert TOKEN not in done.stdout + done.stderr


def test_a_binary_patch_that_inflates_past_githubs_file_limit_is_refused(
    tmp_path: Path, fake: FakeGitHub, capsys: Any
) -> None:
    repo = make_repo(tmp_path / "ws")
    fake.seed_from_git(repo)
    (repo / "zeros.bin").write_bytes(bytes(101 * 1024 * 1024))  # compresses to ~100 KiB in the patch
    record(tmp_path, CONFIG, ("create_pull_request", {"title": "t", "body": "b"}), workspace=repo)
    run = apply(tmp_path, fake, capsys)
    assert run.statuses() == ["failed"] and "over GitHub's 100 MiB file limit" in run.report["items"][0]["error"]
    assert fake.calls("POST", "/git/blobs") == []


def test_an_oversized_records_file_is_invalid_input(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    hand_written(tmp_path, CONFIG, {"type": "noop", "message": "m"})
    with open(tmp_path / "out" / RECORDS_FILE, "r+b") as handle:
        handle.truncate(apply_cli.MAX_RECORDS_BYTES + 1)
    assert apply_cli.main([str(tmp_path / "out")], env_for(tmp_path, fake)) == 2
    assert "not a run's records" in capsys.readouterr().err
