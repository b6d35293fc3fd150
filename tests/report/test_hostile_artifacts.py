"""Artifacts a stranger could hand the report: each is listed with its status and one line that
names it, never a traceback; figures of the wrong type are unknown, never counted; the charts hold
nothing a record wrote. Built from one real run (the CLI on the scripted provider), changed and
resealed where the case needs a manifest that vouches for the change."""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options

from aw_action.report import make_report
from aw_action.report.render import render_markdown
from aw_action.sinks.mermaid import bar_chart, pie_chart
from tests.report.runs import ANSWER, cli_run, reseal, set_run_figures, zip_folder


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("one-run")
    result = cli_run(root / "work", root / "run", ANSWER, {})
    assert result["stop_reason"] == "completed"
    return root / "run"


def _copy(run: Path, tmp_path: Path, name: str = "aw-harness-x") -> Path:
    folder = tmp_path / "downloads" / name
    shutil.copytree(run, folder)
    return folder


def _only_problem(path: Path) -> dict[str, str]:
    report = make_report([path])
    assert report["runs"] == [] and len(report["problems"]) == 1, report
    problem: dict[str, str] = report["problems"][0]
    return problem


def test_a_manifest_that_names_a_path_outside_the_run_is_inconsistent(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path)
    (tmp_path / "secret").write_text("not a record\n")
    with (folder / "records.sha256").open("a") as fh:
        fh.write(f"{'0' * 64}  ../../secret\n")
    problem = _only_problem(folder)
    assert problem["status"] == "inconsistent" and "names '../../secret', outside the run" in problem["problem"]


def test_a_record_that_is_a_link_is_refused(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path)
    (folder / "session.jsonl").unlink()
    os.symlink("replay.jsonl", folder / "session.jsonl")
    problem = _only_problem(folder)
    assert problem["status"] == "unreadable" and "session.jsonl: is a symbolic link" in problem["problem"]
    (folder / "session.jsonl").unlink()
    os.symlink("/etc/hostname", folder / "session.jsonl")
    problem = _only_problem(folder)
    assert problem["status"] == "unreadable" and "session.jsonl: leaves the run's folder" in problem["problem"]


def test_a_zip_no_upload_could_make_is_refused_whole(run: Path, tmp_path: Path) -> None:
    archive = tmp_path / "evil.zip"
    zip_folder(run, archive)
    with zipfile.ZipFile(archive, "a") as zf:
        zf.writestr("../escape.txt", "x")
    problem = _only_problem(archive)
    assert (
        problem["status"] == "unreadable"
        and "member '../escape.txt' refused: its path leaves the archive" in (problem["problem"])
    )


def test_figures_of_the_wrong_type_are_unknown_and_text_stays_text(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path, "aw-harness-`|<b>x")
    set_run_figures(
        folder,
        costUsd="1e9",
        toolCalls=-3,
        effectiveTokens=True,
        stopReason='x"] ; click',
        exitCode=1,
        explanation="![](https://tracker.example/p.png) | <script>",
    )
    report = make_report([folder.parent])
    [row] = report["runs"]
    assert row["cost_usd"] is None and row["tool_calls"] is None and row["effective_tokens"] is None
    assert report["figures"]["cost_usd"] == {"total": 0, "median": None, "unknown": 1}
    markdown = render_markdown(report)
    html = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;script&gt;" in html and "<code>aw-harness-`|&lt;b&gt;x</code>" in html
    pie = markdown.split("```mermaid")[2].split("```")[0]
    assert '"other" : 1' in pie and "click" not in pie, "a stop reason that is no plain word is drawn as other"


def test_a_zip_with_one_run_per_folder_counts_each(run: Path, tmp_path: Path) -> None:
    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for prefix in ("first", "second"):
            for path in sorted(run.rglob("*")):
                zf.write(path, f"{prefix}/{path.relative_to(run).as_posix()}")
        zf.writestr("previous-runs/x/records.sha256", "")
    report = make_report([archive])
    assert [r["artifact"] for r in report["runs"]] == ["two.zip/first", "two.zip/second"]
    assert not report["problems"]


def test_a_session_file_of_another_format_is_listed_as_such(run: Path, tmp_path: Path) -> None:
    folder = _copy(run, tmp_path)
    lines = (folder / "aw_session.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["data"]["version"] = 0
    (folder / "aw_session.jsonl").write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    reseal(folder)
    problem = _only_problem(folder)
    assert (
        problem["status"] == "older-format"
        and "format version 0; this aw-harness reads version 1" in (problem["problem"])
    )


def test_the_charts_hold_numbers_and_plain_words_only() -> None:
    bars = bar_chart('Cost" per run', "USD", [float(i) for i in range(100)], places=2)
    assert 'title "Cost per run (the 60 largest of 100)"' in bars
    assert '"100"' in bars and '"40"' not in bars, "the 60 largest keep their own run numbers"
    pie = pie_chart("How", [("completed", 2), ('x" : 9\n    "y', 1), ("max_turns", 0)])
    assert pie.splitlines()[3:] == ['    "completed" : 2', '    "other" : 1', "```"]


def test_the_markdown_of_many_failed_runs_fits_a_step_summary(run: Path, tmp_path: Path) -> None:
    """1,000 failed runs with long explanations stay under the 1 MiB a step summary holds."""
    template = _copy(run, tmp_path, "template")
    set_run_figures(template, exitCode=1, conclusion="failure", stopReason="error", explanation="why " * 300)
    archive = tmp_path / "template.zip"
    zip_folder(template, archive)
    downloads = tmp_path / "many"
    downloads.mkdir()
    for i in range(1000):
        shutil.copy(archive, downloads / f"leg-{i:04d}.zip")
    report = make_report([downloads])
    assert report["counts"]["failed_or_stopped"] == 1000
    markdown = render_markdown(report)
    assert len(markdown.encode()) < 1024 * 1024
    assert "700 more are in the JSON report" in markdown
