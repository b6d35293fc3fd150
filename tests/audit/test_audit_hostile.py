"""``aw-harness audit`` against hostile records and archives (issue 10, item 4): bounded memory,
one line and exit 2 when it cannot audit, never a traceback.

Peak RSS of the zip-bomb case is reported by ``bench/bench_bounded_memory.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aw_action.audit import main
from aw_action.audit.render import render_text
from aw_action.audit.report import build_report
from aw_action.audit.sources import MAX_TOTAL_BYTES, Artifact

USAGE = {
    "type": "usage.report",
    "timestamp": "2026-01-01T00:00:00Z",
    "data": {"requestId": "r1", "model": "m", "usage": {"inputTokens": 10, "outputTokens": 5}, "durationMs": 12},
}


def audit(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aw_action", "audit", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_zip_bomb_stops_at_the_limit_with_one_line(tmp_path: Path) -> None:
    bomb = tmp_path / "artifact.zip"
    line = (json.dumps(USAGE) + "\n").encode()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for i in range(8):  # each member alone is under the limit; together they are far over it
            zf.writestr(f"run{i}/usage/aw_session.jsonl", line * (MAX_TOTAL_BYTES // len(line) // 2))
    assert bomb.stat().st_size < 3 * 1024 * 1024
    run = audit(bomb)
    assert run.returncode == 2
    assert run.stdout == ""
    [message] = run.stderr.splitlines()
    assert message.startswith("aw-harness audit: error: ") and "exceed the audit limit of 32 MB" in message


def test_non_finite_numbers_and_deep_nesting_are_skipped_with_a_warning(tmp_path: Path) -> None:
    good = json.dumps(USAGE)
    lines = [
        good,
        good.replace('"inputTokens": 10', '"inputTokens": Infinity'),
        good.replace('"durationMs": 12', '"durationMs": 1e400'),
        good.replace('"durationMs": 12', '"durationMs": NaN'),
        '{"type": "usage.report", "data": ' + "[" * 5000 + "]" * 5000 + "}",
        '{"x": ' + "[" * 100 + "]" * 100 + "}",
        good.replace('"outputTokens": 5', '"outputTokens": ' + "9" * 30),
    ]
    (tmp_path / "usage").mkdir()
    (tmp_path / "usage" / "aw_session.jsonl").write_text("\n".join(lines) + "\n")
    run = audit(tmp_path, "--json")
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["totals"]["requests"] == 1 and report["skipped_lines"] == 6
    [warning] = run.stderr.splitlines()
    assert warning == (
        "aw-harness audit: warning: usage/aw_session.jsonl: 6 line(s) skipped "
        "(first: line 2: Infinity is not a number JSON allows)"
    )
    reasons = report["skipped"][0]
    assert reasons["lines"] == 6


def test_a_fifo_named_like_a_record_is_not_waited_on(tmp_path: Path) -> None:
    import os

    (tmp_path / "usage").mkdir()
    os.mkfifo(tmp_path / "usage" / "aw_session.jsonl")
    (tmp_path / "token-usage.jsonl").write_text(json.dumps({"input_tokens": 1, "output_tokens": 2}) + "\n")
    run = audit(tmp_path, "--json")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["sources"] == ["token-usage.jsonl"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3),
    max_leaves=8,
)
KINDS = st.sampled_from(
    [
        "usage.report",
        "firewall.token_usage",
        "assistant.turn_start",
        "assistant.turn_end",
        "tool.execution_complete",
        "harness.warning",
        "harness.run",
        "session.result",
        "session.start",
        "agent.execution",
        "harness.workflow",
    ]
)
FIELDS = ["requestId", "model", "usage", "durationMs", "aic", "steering", "turnId", "toolName", "isError"]
FIELDS += ["message", "exitCode", "conclusion", "stopReason", "degraded", "status", "numTurns", "success"]
FIELDS += ["workflow", "visits", "path", "pauses", "pending_review"]


@st.composite
def records(draw: Any) -> dict[str, Any]:
    data = {key: draw(JSON) for key in draw(st.lists(st.sampled_from(FIELDS), max_size=6))}
    if draw(st.booleans()):
        data["usage"] = draw(st.dictionaries(st.sampled_from(["inputTokens", "outputTokens"]), JSON, max_size=2))
    return {"type": draw(KINDS), "data": data, "provenance": draw(JSON), "timestamp": draw(JSON)}


ROWS = st.dictionaries(
    st.sampled_from(["input_tokens", "output_tokens", "cost_usd", "duration_ms", "turn", "steering", "request_id"]),
    JSON,
    max_size=7,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), max_size=8), st.lists(ROWS, max_size=4))
def test_any_json_records_give_a_report_never_a_traceback(unified: list[dict[str, Any]], rows: list[Any]) -> None:
    artifact = Artifact(
        root="x",
        files={
            "usage/aw_session.jsonl": "\n".join(json.dumps(r) for r in unified),
            "token-usage.jsonl": "\n".join(json.dumps({"input_tokens": 0, **r}) for r in rows),
        },
    )
    report = build_report(artifact)
    json.dumps(report, allow_nan=False)  # valid JSON: no infinity, no NaN
    assert render_text(report).endswith("\n")


def test_main_prints_one_object_on_stdout(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "token-usage.jsonl").write_text(json.dumps({"input_tokens": 3, "output_tokens": 4}) + "\nnot json\n")
    assert main([str(tmp_path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["totals"]["input_tokens"] == 3
    assert err.count("\n") == 1 and "1 line(s) skipped (first: line 2: not JSON" in err


def test_a_lying_workflow_record_is_reported_by_what_holds_up() -> None:
    record = {
        "type": "harness.workflow",
        "data": {
            "workflow": "fix|`x`\n",
            "status": 5,
            "visits": {"a": 2, "b": "three", "c": -1, "d": True},
            "path": [{"step": "a", "visit": "1", "outcome": ["x"], "next": "b"}, "junk", None],
            "pauses": "none",
            "pending_review": {"step": "b", "artifact_chars": "12"},
        },
    }
    artifact = Artifact(root="x", files={"usage/aw_session.jsonl": json.dumps(record)})
    report = build_report(artifact)
    workflow = report["workflow"]
    assert workflow["visits"] == {"a": 2} and workflow["pauses"] == []
    assert workflow["path"] == [{"step": "a", "visit": None, "outcome": "", "next": "b", "decided_by": ""}]
    assert workflow["pending_review"] == {"step": "b", "outcome": "", "artifact_chars": None}
    text = render_text(report)
    assert "### Workflow `` fix|`x` ``: unknown" in text and "| 1 | `a` | – |  | b |  |" in text
