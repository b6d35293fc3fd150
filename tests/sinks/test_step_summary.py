"""The step summary: content, GitHub rendering (cmark-gfm), notices and the 1 MiB limit."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aw_action.ai.types import Usage
from aw_action.run.ledger import RequestRecord
from aw_action.run.redact import Redactor
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks.summary import STEP_SUMMARY_LIMIT, append_step_summary, render_run_summary
from aw_action.timestamps import utc_iso
from tests.sinks.support import BUDGET_SCRIPT, TOOL_SCRIPT, scripted_run
from tests.sinks.support import gfm_page as gfm


def _rows(html: str, section: str) -> list[list[str]]:
    """Cells of the first table after the heading named ``section`` (or a ``<summary>``)."""
    heading = rf"<h[34]>{re.escape(section)}</h[34]>|<summary>{re.escape(section)}[^<]*</summary>"
    parts = re.split(heading, html, maxsplit=1)
    table = parts[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S) for row in rows]


def _state(turns: int, model: str = "anthropic/claude-sonnet-4-5") -> RunState:
    state = RunState.for_model(model)
    per = Usage(input=1000, output=200, cache_read=300)
    for i in range(1, turns + 1):
        state.ledger.record_request(
            RequestRecord(utc_iso(), f"req-{i}", "anthropic", model, "agent", "ok", True, per, 1000, 1830, 0.01, 1.0, i)
        )
        state.ledger.record_tool_call()
        state.ledger.close_turn(1, ended_at=utc_iso(state.record.started_at + timedelta(seconds=i)))
    return state


def _success(state: RunState) -> RunResult:
    return RunResult.ended("completed", state.model, state)


def test_run_summary_renders_every_section_as_gfm(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT, {"harness": {"budget": {"max-effective-tokens": 100000}}})
    html = gfm((tmp_path / "summary.md").read_text())
    assert "<h2>⚠️ Success · 1 of 2 tool calls failed</h2>" in html
    turns = _rows(html, "Tokens per turn")
    assert turns[0] == [
        "Turn",
        "Input Tokens",
        "Output Tokens",
        "Cumulative",
        "Cumulative Effective",
        "Est. Cost",
        "Elapsed",
    ]
    events = run.events_named("turn_end")
    for row, event in zip(turns[1:-1], events, strict=True):
        assert row[:4] == [
            str(event["turn"]),
            f"{event['input_tokens']:,}",
            f"{event['output_tokens']:,}",
            f"{event['cumulative_tokens']:,}",
        ]
    total = turns[-1]
    assert total[0] == "<strong>Total</strong>" and total[3] == f"<strong>{run.result['tokens']['total']:,}</strong>"
    budget = {row[0]: row[1:] for row in _rows(html, "Budget")[1:]}
    effective = run.result["tokens"]["effective"]
    assert budget["Effective tokens"] == [f"{round(effective):,}", "100,000", f"{100 * effective / 100000:.1f}%"]
    assert _rows(html, "Context provenance")[1][:3] == ["prompt", "<em>(prompt.txt)</em>", "3"]
    assert '<pre lang="mermaid"><code>xychart-beta' in html
    chart = html.split('<pre lang="mermaid">')[1].split("</pre>")[0]
    assert "line [100000" not in chart, "a budget far above the usage is left off the scale"
    assert "the budget (100,000) is " in html and "× the usage, so it is left off the scale" in html
    assert "No steering notice was delivered" in html
    assert "Degraded" not in html and "CAUTION" not in html


def test_budget_exhaustion_notice_and_delivered_notices(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-effective-tokens": 4000}}})
    assert run.returncode == 1
    html = gfm((tmp_path / "summary.md").read_text())
    notice = html.split("<blockquote>", 1)[1].split("</blockquote>", 1)[0]
    exceeded = run.events_named("budget_exceeded")[0]
    assert "<h2>❌ Failure · Stopped by the effective-token limit</h2>" in html
    assert f"{round(exceeded['used']):,} of {round(exceeded['limit']):,} effective tokens used" in notice
    assert "<code>harness.budget.max-effective-tokens</code> in config.json (now 4,000)" in notice
    steering = run.events_named("steering")[0]
    rows = _rows(html, "Steering notices")
    assert rows[1][1:4] == [steering["type"], f"{steering['threshold']}%", f"<code>{steering['request_id']}</code>"]
    assert len(_rows(html, "Tokens per turn")) == 1 + run.result["turns"] + 1


def test_table_cells_survive_pipes_and_backticks() -> None:
    state = _state(2, model="odd|model`name")
    state.record.provenance.append(
        {"source": "import", "path": "docs/a|b`c.md", "tokens": 5, "cumulative_tokens": 5, "role": "user"}
    )
    state.record.publish_limits({"effective_tokens": 10000.0})
    html = gfm(render_run_summary(_success(state)))
    assert "<code>odd|model`name</code>" in html
    provenance = _rows(html, "Context provenance")
    assert len(provenance[1]) == 4 and provenance[1][1] == "<code>docs/a|b`c.md</code>"
    assert all(len(row) == 7 for row in _rows(html, "Tokens per turn"))


def test_summary_appends_and_stays_under_one_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    existing = "# Earlier step\n\n" + ("x" * 99 + "\n") * ((STEP_SUMMARY_LIMIT - 200_000) // 100)
    path.write_text(existing)
    state = _state(5000)
    result = _success(state)
    written = append_step_summary(path, lambda rows: render_run_summary(result, rows), Redactor())
    data = path.read_bytes()
    assert written > 0 and len(data) <= STEP_SUMMARY_LIMIT
    assert data.startswith(existing.encode())
    added = data[len(existing) :].decode()
    html = gfm(added)
    assert "<h2>✅ Success · Finished</h2>" in html and "rows omitted" in html
    assert _rows(html, "Tokens per turn")[-1][3] == f"<strong>{state.ledger.totals.total:,}</strong>"


def test_summary_is_redacted(tmp_path: Path) -> None:
    state = _state(1, model="model-with-SECRET-VALUE-123")
    path = tmp_path / "summary.md"
    append_step_summary(
        path,
        lambda rows: render_run_summary(_success(state), rows),
        Redactor(["SECRET-VALUE-123"]),
    )
    assert "SECRET-VALUE-123" not in path.read_text() and "model-with-***" in path.read_text()


def test_elapsed_column_reads_turn_end_times() -> None:
    state = _state(2)
    state.record.started_at = datetime.now(UTC) - timedelta(seconds=90)
    turns = state.ledger.turns
    turns[1] = replace(turns[1], ended_at=utc_iso(state.record.started_at + timedelta(seconds=75)))
    html = gfm(render_run_summary(_success(state)))
    assert _rows(html, "Tokens per turn")[2][6] == "1 min 15 s"


def test_summary_labels_raw_and_weighted_counts_and_shows_the_multiplier() -> None:
    state = _state(2)  # claude-sonnet-4-5 records: 1830 effective tokens of a 1000/300/200 usage
    html = gfm(render_run_summary(_success(state)))
    rows = _rows(html, "Tokens per turn")
    assert rows[1][4] == "1,830" and rows[2][4] == "3,660"
    assert "Effective tokens (weighted): <strong>3,660</strong> · Raw tokens: <strong>3,000</strong>" in html
    assert "raw token counts as the API reported them" in html
    assert "<code>anthropic/claude-sonnet-4-5</code> weighs ×1." in html  # 1830 / (1000 + 30 + 800)


def test_a_credit_budget_stop_reads_in_credits_to_two_places() -> None:
    state = _state(1)
    state.journal.record_budget_stop(
        {"budget": "ai_credits", "used": 9.719999999999999, "limit": 10.0, "trigger": "critical_percent",
         "critical_percent": 90}
    )  # fmt: skip
    state.record.publish_limits({"ai_credits": 10.0})
    html = gfm(render_run_summary(RunResult.ended("budget_exceeded", state.model, state)))
    notice = html.split("<blockquote>", 1)[1].split("</blockquote>", 1)[0]
    assert "9.72 of 10.00 ai credits used (97%)" in notice and "9.719999" not in html
    assert "no request starts once 90% of the limit is used" in notice
