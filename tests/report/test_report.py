"""``aw-harness report`` over a downloads folder of real runs of every ending (``runs.py``): the
JSON's totals are the sums of the runs' own records, every artifact it could not count is listed
with its status, and the Markdown renders (cmark-gfm, GitHub's renderer) as tables and Mermaid
charts with nothing from a record acting as Markdown or HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from tests.conftest import base_env, run_cli
from tests.report.runs import Made, make_runs

COUNTED = {
    "aw-harness-success": "completed",
    "aw-harness-max-turns": "max_turns",
    "aw-harness-budget": "budget_exceeded",
    "aw-harness-timeout": "timeout",
    "aw-harness-error": "error",
    "aw-harness-cancelled": "cancelled",
    "aw-harness-priced.zip": "completed",
    "aw-harness-invalid-input": "invocation_error",
}
NOT_READ = {
    "aw-harness-invalid": "unreadable",
    "aw-harness-tampered": "inconsistent",
    "aw-harness-older": "older-format",
    "merged": "merged",
    "aw-harness-damaged.zip": "unreadable",
}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Made]]:
    return make_runs(tmp_path_factory.mktemp("report"))


def _report(tmp_path: Path, *args: str) -> tuple[int, str, str]:
    run = run_cli(["report", *args], base_env(tmp_path), timeout=120)
    return run.returncode, run.stdout, run.stderr


def _records(folder: Path) -> dict[str, dict[str, Any]]:
    """``harness.run`` and ``session.result`` as the run wrote them."""
    found: dict[str, dict[str, Any]] = {}
    for line in (folder / "aw_session.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["type"] in ("harness.run", "session.result"):
            found[record["type"]] = record["data"]
    return found


def test_the_runs_made_end_as_intended(made: tuple[Path, list[Made]]) -> None:
    _downloads, runs = made
    ends = {m.name: m.result["stop_reason"] for m in runs if m.result is not None}
    assert ends == {**COUNTED, "aw-harness-invalid": "invocation_error"}
    assert [m.name for m in runs if m.result is None] == []


def test_json_totals_are_the_sums_of_the_runs_own_records(tmp_path: Path, made: tuple[Path, list[Made]]) -> None:
    downloads, runs = made
    code, out, err = _report(tmp_path, str(downloads), "--json")
    assert code == 1, err  # some artifacts were not read
    report = json.loads(out)
    assert {r["artifact"]: r["stop_reason"] for r in report["runs"]} == COUNTED
    assert {p["artifact"]: p["status"] for p in report["problems"]} == NOT_READ
    assert report["counts"]["runs"] == len(COUNTED) and report["counts"]["not_read"] == len(NOT_READ)
    assert report["counts"]["succeeded"] == 2 and report["counts"]["failed_or_stopped"] == 6

    results = {m.name: m.result for m in runs if m.name in COUNTED}
    figures = report["figures"]
    assert figures["turns"]["total"] == sum(r["turns"] for r in results.values() if r)
    assert figures["tool_calls"]["total"] == sum(r["tool_calls"] for r in results.values() if r)
    assert figures["tokens"]["total"] == sum(r["tokens"]["total"] for r in results.values() if r)
    assert figures["effective_tokens"]["total"] == pytest.approx(
        sum(r["tokens"]["effective"] for r in results.values() if r)
    )
    assert figures["cost_usd"]["total"] == pytest.approx(0.0125)  # the priced copy; the scripted model is free
    folders = [downloads / name for name in COUNTED if not name.endswith((".zip", "-input"))]
    durations = [_records(f)["harness.run"]["durationMs"] for f in folders]
    durations.append(_records(downloads / "aw-harness-success")["harness.run"]["durationMs"])  # its zipped copy
    assert figures["duration_ms"]["total"] == pytest.approx(sum(durations))
    started = [r for name, r in results.items() if r and name != "aw-harness-invalid-input"]
    assert figures["turns"]["median"] == sorted(r["turns"] for r in started)[len(started) // 2]
    assert figures["turns"]["unknown"] == figures["cost_usd"]["unknown"] == 1, "the run that never started"

    first = [r["artifact"] for r in report["runs"]][:6]
    assert sorted(first) == sorted(n for n, why in COUNTED.items() if why != "completed"), "failed runs first"
    by_name = {r["artifact"]: r for r in report["runs"]}
    assert by_name["aw-harness-invalid-input"]["explanation"] == (
        "The run could not start: Input 'max-turns': should be a valid integer, unable to parse string as an "
        "integer (got 'abc'). Fix: Check the step's inputs (with:) and the files they name, then re-run."
    )
    for name, run in by_name.items():
        if name != "aw-harness-invalid-input":
            recorded = _records(downloads / name.removesuffix(".zip").replace("priced", "success"))["harness.run"]
            assert run["explanation"] == recorded["explanation"]
    assert "max-turns" in by_name["aw-harness-max-turns"]["explanation"]
    for line in err.splitlines():
        assert line.startswith("aw-harness report: "), line
    assert len(err.splitlines()) == len(NOT_READ), "each artifact not read is named once on stderr"


def test_each_artifact_not_read_says_why(tmp_path: Path, made: tuple[Path, list[Made]]) -> None:
    downloads, _runs = made
    report = json.loads(_report(tmp_path, str(downloads), "--json")[1])
    why = {p["artifact"]: p["problem"] for p in report["problems"]}
    assert "holds no aw-harness records" in why["aw-harness-invalid"]
    assert why["aw-harness-tampered"].endswith(
        "session.jsonl: changed or cut short since its run wrote it (its SHA-256 is not the one records.sha256 records)"
    )
    assert "no records.sha256" in why["aw-harness-older"]
    assert "holds the records of 2 runs" in why["merged"] and str(downloads / "merged") in why["merged"]
    assert "cut short or damaged" in why["aw-harness-damaged.zip"]


def _html(markdown: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


def test_the_markdown_renders_tables_and_charts(tmp_path: Path, made: tuple[Path, list[Made]]) -> None:
    downloads, _runs = made
    code, markdown, _err = _report(tmp_path, str(downloads))
    assert code == 1
    html = _html(markdown)
    tables = re.findall(r"<table>.*?</table>", html, re.S)
    failed, not_read, figures, every = tables
    assert failed.count("<tr>") == 1 + 6 and not_read.count("<tr>") == 1 + len(NOT_READ)
    assert every.count("<tr>") == 1 + len(COUNTED)
    assert "<td>Cost</td>" in figures and "$0.0125" in figures
    for table in tables:  # no cell broke its row: every row has its header's cells
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        assert len({len(re.findall(r"<t[hd]", row)) for row in rows}) == 1, table
    assert "<img" not in html and "<strong>bold</strong>" not in html and ">link</a>" not in html
    # (a bare URL is still autolinked by GitHub whatever the escapes: md.escape says so)
    assert "&lt;img src=x" in failed, "the hostile error is shown, as text"
    charts = re.findall(r'<pre lang="mermaid"><code>(.*?)</code></pre>', html, re.S)
    assert [c.split("\n")[0] for c in charts] == ["xychart-beta", "xychart-beta", "pie showData"]
    assert "Cost per run" in charts[0] and "bar [" in charts[0]
    assert '"max_turns" : 1' in charts[2].replace("&quot;", '"') and '"completed" : 2' in charts[2].replace(
        "&quot;", '"'
    )
    assert "8 runs</strong>: 2 succeeded, 6 failed or stopped" in html
    assert "5 artifacts not read" in html


def test_a_zip_and_a_run_folder_are_reports_of_one_run(tmp_path: Path, made: tuple[Path, list[Made]]) -> None:
    downloads, _runs = made
    code, out, _err = _report(tmp_path, str(downloads / "aw-harness-priced.zip"), str(downloads / "aw-harness-success"))
    assert code == 0
    report = json.loads(_report(tmp_path, str(downloads / "aw-harness-success"), "--json")[1])
    assert [r["artifact"] for r in report["runs"]] == ["aw-harness-success"] and not report["problems"]
    assert "2 runs" in out


def test_a_path_that_does_not_exist_is_one_line_and_exit_2(tmp_path: Path) -> None:
    code, out, err = _report(tmp_path, str(tmp_path / "nowhere"))
    assert code == 2 and out == ""
    assert err == f"aw-harness report: error: {tmp_path / 'nowhere'}: no such file or directory\n"
    code, _out, err = _report(tmp_path)
    assert code == 2 and "usage: aw-harness report PATH..." in err and "Traceback" not in err
