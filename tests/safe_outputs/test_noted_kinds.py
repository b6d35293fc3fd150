"""``missing_tool`` and ``missing_data``: recorded through the tools, shown in the run's step
summary, the dry run and the apply report, sanitised, limited by ``max``, and never written to
GitHub (the fake records every request)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolError
from aw_action.extensions.safe_outputs import summary_section
from aw_action.safe_outputs.records import RECORDS_FILE, read_records
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.support import records
from tests.safe_outputs.test_apply import apply, hand_written, record

CONFIG: dict[str, Any] = {"missing-tool": {"max": 2}, "missing-data": None}
HOSTILE = "needs @alice's token, see https://evil.example/x <script>x</script> fixes #1"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    server = FakeGitHub()
    server.add_issue("The triggering issue")
    yield server
    server.close()


def test_reported_shown_and_never_written(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    record(
        tmp_path,
        CONFIG,
        ("missing_tool", {"tool": "docker", "reason": HOSTILE, "alternatives": "run it locally"}),
        ("missing_data", {"data_type": "the crash log", "reason": "to find the cause"}),
    )
    assert [r["type"] for r in records(tmp_path / "out")] == ["missing_tool", "missing_data"]
    section = summary_section(read_records(tmp_path / "out" / RECORDS_FILE))
    assert "needs @alice" in section and "to find the cause" in section  # the run's own summary
    dry = apply(tmp_path, fake, capsys, "--dry-run")
    assert dry.code == 0 and dry.statuses() == ["planned", "planned"]
    run = apply(tmp_path, fake, capsys)
    assert run.code == 0 and run.statuses() == ["noted", "noted"]
    tool, data = run.report["items"]
    assert tool["message"].startswith("tool: docker; reason: needs <code>@alice</code>'s token, see (evil.example")
    assert "<script" not in tool["message"] and "<code>fixes</code> #1" in tool["message"]
    assert data["message"] == "data_type: the crash log; reason: to find the cause"
    assert "| `missing_tool` | noted | `tool: docker" in run.summary
    again = apply(tmp_path, fake, capsys)
    assert again.statuses() == ["noted", "noted"]
    assert [r for r in fake.requests if r.path.startswith("/repos/")] == [], "nothing written, nothing read"


def test_past_max_and_bad_fields_are_refused(tmp_path: Path, fake: FakeGitHub, capsys: Any) -> None:
    report = ("missing_tool", {"reason": "no network"})
    with pytest.raises(ToolError, match="limit reached: 2 of 2 missing_tool"):
        record(tmp_path, CONFIG, report, report, report)
    with pytest.raises(ToolError, match="reason: 300 characters, over the limit of 256"):
        record(tmp_path, CONFIG, ("missing_tool", {"reason": "x" * 300}))
    hand_written(tmp_path, CONFIG, {"type": "missing_tool", "reason": "third"}, {"type": "missing_data"})
    run = apply(tmp_path, fake, capsys)
    assert run.code == 1 and run.statuses() == ["noted", "noted", "refused", "refused"]
    assert run.report["items"][2]["error"] == "over the limit: safe-outputs.missing-tool.max is 2"
    assert "give at least one of: data_type, reason, context, alternatives" in run.report["items"][3]["error"]
