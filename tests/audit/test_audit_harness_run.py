"""``aw-harness audit`` on the harness's own output dir, checked against what the run reported."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from tests.audit.test_audit_awf_fixture import audit, audit_json
from tests.conftest import ISOLATION_WARNING
from tests.sinks.support import BUDGET_SCRIPT, TOOL_SCRIPT, gfm, jsonl, scripted_run


def test_audit_of_a_completed_run_matches_the_run_result(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    assert run.returncode == 0
    report = audit_json(run.output_dir)
    result = run.result
    overview = report["overview"]
    assert (overview["model"], overview["conclusion"], overview["stop_reason"], overview["exit_code"]) == (
        "faux/scripted",
        "success",
        "completed",
        0,
    )
    assert overview["source"] == "aw-harness" and overview["duration_ms"] > 0
    totals = report["totals"]
    for key in ("input", "output", "cache_read", "cache_write", "reasoning"):
        assert totals[f"{key}_tokens"] == result["tokens"][key], key
    assert totals["total_tokens"] == result["tokens"]["total"]
    assert totals["effective_tokens"] == result["tokens"]["effective"]
    assert totals["cost_usd"] == result["cost_usd"] and totals["requests"] == 3
    assert list(report["by_model"]) == ["scripted"]
    turn_events = run.events_named("turn_end")
    assert [(t["turn"], t["cumulative_tokens"]) for t in report["turns"]] == [
        (e["turn"], e["cumulative_tokens"]) for e in turn_events
    ]
    assert all(t["completed"] for t in report["turns"])
    assert report["tools"] == [
        {
            "name": "bash",
            "count": 2,
            "errors": 1,
            "duration_ms": sum(e["duration_ms"] for e in run.events_named("tool_end")),
        }
    ]
    warnings = [w for w in report["warnings"] if ISOLATION_WARNING not in w]
    assert report["steering_notices"] == [] and report["degraded"] == [] and warnings == []


def test_audit_of_a_budget_abort_shows_the_notice_and_the_incomplete_turn(tmp_path: Path) -> None:
    """The second answer wants 5,000 output tokens; the budget pays for fewer, so it is cut at its
    ``max_tokens`` and discarded: the audit shows that turn as incomplete."""
    script = [BUDGET_SCRIPT[0], {**BUDGET_SCRIPT[1], "usage": {"input": 1000, "output": 5000}}]
    run = scripted_run(tmp_path, script, {"harness": {"budget": {"max-effective-tokens": 4000}}})
    assert run.returncode == 1
    report = audit_json(run.output_dir)
    assert report["overview"]["stop_reason"] == "budget_exceeded" and report["overview"]["exit_code"] == 1
    carried = [r for r in jsonl(run.output_dir / "token-usage.jsonl") if "steering" in r]
    assert report["steering_notices"] == [
        {**r["steering"], "request_id": r["request_id"], "phase": "agent"} for r in carried
    ]
    completed = [t for t in report["turns"] if t["completed"]]
    assert len(completed) == run.result["turns"]
    assert [t["completed"] for t in report["turns"]][-1] is False  # the discarded in-flight turn
    assert run.events_named("budget_exceeded")[0]["trigger"] == "answer_cut"
    assert report["totals"]["effective_tokens"] == run.result["tokens"]["effective"]


def test_audit_reads_degraded_sinks_and_warnings_from_a_zip(tmp_path: Path) -> None:
    (tmp_path / "out" / "token-usage.jsonl").mkdir(parents=True)
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    archive = tmp_path / "aw-harness-run.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in run.output_dir.iterdir():
            if path.is_file():
                zf.write(path, f"aw-harness/{path.name}")
    report = audit_json(archive)
    assert [d["subsystem"] for d in report["degraded"]] == ["token-usage"]
    assert any("token-usage sink failed" in w for w in report["warnings"])
    assert report["totals"]["requests"] == 3  # the unified session alone still holds every request


def test_text_report_renders_as_gfm(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    proc = audit(str(run.output_dir))
    assert proc.returncode == 0, proc.stderr
    html = gfm(proc.stdout)
    assert "<h2>AW Harness Audit — <code>faux/scripted</code></h2>" in html
    for section in ("Totals (agent phase)", "By Model", "Turns", "Steering Notices", "Tools", "Warnings"):
        assert f"<h3>{section}</h3>" in html
    assert json.loads(run.stdout)["turns"] == html.split("<h3>Turns</h3>")[1].split("</table>")[0].count("<tr>") - 1
