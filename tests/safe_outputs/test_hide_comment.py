"""``hide_comment`` through the agent's tools and PyGithub's GraphQL against the fake GitHub
(hiding exists only in GraphQL; the fake records every query): the comment looked up, then one
``minimizeComment``; re-apply finds it hidden and writes nothing; a comment of another repository
refused; ``allowed-reasons`` and ``max`` held when recorded and when applied; hostile IDs refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext, ToolError
from aw_action.safe_outputs import safe_output_tools
from aw_action.safe_outputs.records import RECORDS_FILE
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.support import execute, records, tools_by_name
from tests.safe_outputs.test_apply import apply, hand_written, record

CONFIG: dict[str, Any] = {"hide-comment": {"allowed-reasons": ["SPAM", "OFF_TOPIC"], "max": 1}}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("The triggering issue")  # #1
    server.add_comment(1, "Buy cheap watches", author="spammer")
    yield server
    server.close()


def _node(fake: FakeGitHub) -> str:
    return str(fake.comments[1][0]["node_id"])


def _mutations(fake: FakeGitHub) -> list[tuple[str, dict[str, Any]]]:
    return [(q, v) for q, v in fake.graphql if q.startswith("mutation")]


def test_hides_the_comment_once(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("hide_comment", {"comment_id": _node(fake), "reason": "OFF_TOPIC"}))
    dry = apply(tmp_path, fake, capsys, "--dry-run")
    assert dry.statuses() == ["planned"]
    assert dry.report["items"][0]["node_id"] == _node(fake) and dry.report["items"][0]["event"] == "OFF_TOPIC"
    assert fake.requests == []
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["applied"], run.report
    assert run.report["items"][0]["url"] == fake.comments[1][0]["html_url"]
    (mutation,) = _mutations(fake)
    assert "minimizeComment" in mutation[0] and mutation[1] == {"id": _node(fake), "classifier": "OFF_TOPIC"}
    assert fake.comments[1][0]["_minimized"] == "OFF_TOPIC"
    assert not [r for r in fake.requests if r.path.startswith("/repos/") and r.method != "GET"], "GraphQL only"
    assert "hide_comment" in run.summary
    again = apply(tmp_path, fake, capsys)
    assert again.code == 0 and again.statuses() == ["exists"] and len(_mutations(fake)) == 1


def test_a_comment_of_another_repository_is_refused(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    fake.comments[1][0]["_repository"] = "octo/other"
    record(tmp_path, CONFIG, ("hide_comment", {"comment_id": _node(fake)}))
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and "is in octo/other, not octo/hello" in run.report["items"][0]["error"]
    assert _mutations(fake) == []


def test_an_unknown_comment_is_refused(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("hide_comment", {"comment_id": "IC_kwDOnothere"}))
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and "is not a comment this job's token can see" in run.report["items"][0]["error"]


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({"comment_id": 'IC_x") { evil }'}, "comment_id: must be a comment's GraphQL node ID"),
        ({"comment_id": 1234}, "comment_id: must be a comment's GraphQL node ID"),
        (
            {"comment_id": "IC_kwDOABCD1234", "reason": "ABUSE"},
            "reason: 'ABUSE' is not allowed (allowed: SPAM, OFF_TOPIC)",
        ),
    ],
)
def test_hostile_or_disallowed_arguments_are_refused_when_recorded(
    tmp_path: Path, args: dict[str, Any], error: str
) -> None:
    ctx = ToolContext(cwd=tmp_path, output_dir=tmp_path / "out")
    tool = tools_by_name(safe_output_tools(CONFIG, ctx.output_dir, tmp_path, env={}))["hide_comment"]
    with pytest.raises(ToolError) as refused:
        asyncio.run(execute(tool, args, ctx))  # the tool's own check, past the loop's schema
    assert error in str(refused.value)
    assert records(ctx.output_dir) == []


def test_max_and_reasons_hold_when_applied(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    with pytest.raises(ToolError, match="limit reached: 1 of 1 hide_comment"):
        record(tmp_path, CONFIG, *[("hide_comment", {"comment_id": _node(fake)})] * 2)
    hand_written(
        tmp_path,
        CONFIG,
        {"type": "hide_comment", "comment_id": _node(fake), "reason": "ABUSE"},
        {"type": "hide_comment", "comment_id": _node(fake)},
    )
    run = apply(tmp_path, fake, capsys)
    assert run.statuses() == ["applied", "refused", "refused"]
    assert "not allowed" in run.report["items"][1]["error"]
    assert run.report["items"][2]["error"] == "over the limit: safe-outputs.hide-comment.max is 1"


def test_the_runs_step_summary_shows_the_new_kinds(tmp_path: Path, fake: FakeGitHub) -> None:
    from aw_action.extensions.safe_outputs import summary_section
    from aw_action.safe_outputs.records import read_records

    config = {**CONFIG, "create-discussion": None, "close-issue": {"target": "*"}}
    record(
        tmp_path,
        config,
        ("hide_comment", {"comment_id": _node(fake), "reason": "OFF_TOPIC"}),
        ("create_discussion", {"title": "Weekly <b>report</b>", "body": "b"}),
        ("close_issue", {"body": "done", "issue_number": 1}),
    )
    section = summary_section(read_records(tmp_path / "out" / RECORDS_FILE))
    assert f"| `hide_comment` |  | `OFF_TOPIC {_node(fake)}` |" in section
    assert "| `create_discussion` |  | `Weekly <b>report</b>` |" in section
    assert "| `close_issue` | #1 | `done` |" in section
