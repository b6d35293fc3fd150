"""``remove_labels`` through the agent's tools and PyGithub against the fake GitHub: the exact
requests, a label the item does not carry skipped, re-apply harmless, ``allowed`` and ``max``
enforced when recorded and when applied, and the dry run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolError
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.test_apply import apply, hand_written, record

CONFIG: dict[str, Any] = {"remove-labels": {"allowed": ["needs-triage", "Waiting"], "max": 1}}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("The triggering issue")  # #1
    server.issues[1]["labels"] = [{"name": "needs-triage"}, {"name": "bug"}]
    yield server
    server.close()


def test_removes_the_labels_the_item_carries_and_skips_the_rest(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(tmp_path, CONFIG, ("remove_labels", {"labels": ["NEEDS-TRIAGE", "waiting"]}))
    dry = apply(tmp_path, fake, capsys, "--dry-run")
    assert dry.statuses() == ["planned"] and dry.report["items"][0]["labels"] == ["needs-triage", "Waiting"]
    assert fake.requests == []
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["applied"]
    assert [(r.method, r.path) for r in fake.requests] == [
        ("DELETE", "/repos/octo/hello/issues/1/labels/needs-triage"),
        ("DELETE", "/repos/octo/hello/issues/1/labels/Waiting"),
    ]
    assert run.report["items"][0]["removed"] == ["needs-triage"]
    assert [label["name"] for label in fake.issues[1]["labels"]] == ["bug"]
    again = apply(tmp_path, fake, capsys)
    assert again.code == 0 and again.report["items"][0]["removed"] == []
    assert [label["name"] for label in fake.issues[1]["labels"]] == ["bug"]


def test_allowed_and_max_hold_when_recorded_and_when_applied(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    with pytest.raises(ToolError, match=r"labels: label 'bug' is not allowed \(allowed: Waiting, needs-triage\)"):
        record(tmp_path, CONFIG, ("remove_labels", {"labels": ["bug"]}))
    with pytest.raises(ToolError, match="limit reached: 1 of 1 remove_labels"):
        record(tmp_path, CONFIG, ("remove_labels", {"labels": ["waiting"]}), ("remove_labels", {"labels": ["waiting"]}))
    hand_written(
        tmp_path,
        CONFIG,
        {"type": "remove_labels", "labels": ["bug"]},
        {"type": "remove_labels", "labels": ["needs-triage"], "item_number": 1},
    )
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["applied", "refused", "refused"]
    assert "not allowed" in run.report["items"][1]["error"]
    assert (
        "item_number: not allowed; safe-outputs.remove-labels.target is 'triggering'" in run.report["items"][2]["error"]
    )
    assert [label["name"] for label in fake.issues[1]["labels"]] == ["needs-triage", "bug"]
