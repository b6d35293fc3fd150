"""How a run reads: the step-summary section (rendered with cmark-gfm, GitHub's engine) and the
audit record (path, outcomes, visits, pauses)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import cmarkgfm
import pytest

from aw_action.workflows import (
    LoadedWorkflow,
    RunState,
    audit_record,
    complete_step,
    decide_gate,
    pause_run,
    start_run,
    summary_markdown,
)
from tests.workflows.support import fix_workflow


@pytest.fixture
def wf(tmp_path: Path) -> LoadedWorkflow:
    return fix_workflow(tmp_path)


def _reviewed_twice(wf: LoadedWorkflow, artifact: str) -> RunState:
    state = complete_step(wf, start_run(wf, "run-1", "issue"), "ready", "Bug | in parser")
    state = complete_step(wf, state, "submit", "Plan v1", "# Plan v1")
    state = decide_gate(wf, state, approved=False, feedback="Split | the change")
    return complete_step(wf, state, "submit", "Plan v2", artifact)


def _gfm(markdown: str) -> str:
    rendered: str = cmarkgfm.github_flavored_markdown_to_html(markdown)
    return rendered


def test_audit_record_lists_path_outcomes_visits_and_pauses(wf: LoadedWorkflow) -> None:
    state = decide_gate(wf, _reviewed_twice(wf, "# Plan v2"), approved=True)
    record = audit_record(state)
    assert [(p["step"], p["outcome"], p["next"], p["decided_by"]) for p in record["path"]] == [
        ("inspect", "ready", "plan", "agent"),
        ("plan", "changes-requested", "plan", "reviewer"),
        ("plan", "approved", "implement", "reviewer"),
    ]
    assert record["visits"] == {"inspect": 1, "plan": 2, "implement": 1}
    assert [p["step"] for p in record["pauses"]] == ["plan", "plan"]
    assert record["status"] == "running" and record["pending_review"] is None
    json.dumps(record)  # plain data


def test_pending_review_is_summarised_without_its_content_in_the_audit(wf: LoadedWorkflow) -> None:
    artifact = "# Plan v2\nsecret-ish detail"
    record = audit_record(_reviewed_twice(wf, artifact))
    assert record["pending_review"] == {"step": "plan", "outcome": "submit", "artifact_chars": len(artifact)}
    assert artifact not in json.dumps(record)
    assert record["pause"]["kind"] == "gate"


def test_summary_shows_every_event_in_one_intact_table(wf: LoadedWorkflow) -> None:
    state = decide_gate(wf, _reviewed_twice(wf, "# Plan v2"), approved=True)
    state = pause_run(state, "failed", "provider said: a | b\nthen `stopped`")
    page = _gfm(summary_markdown(state))
    rows = re.findall(r"<tr>", page)
    assert len(rows) == 1 + len(state.trail)  # header + one row per event: a pipe or newline never splits a row
    assert "<td>provider said: a | b then <code>stopped</code></td>" in page
    assert "changes requested" in page and "submitted for review" in page and "approved" in page
    assert "<strong>Paused</strong> at step <code>implement</code>" in page
    assert "<code>plan</code> × 2" in page


def test_the_artifact_under_review_cannot_escape_its_code_block(wf: LoadedWorkflow) -> None:
    hostile = "# Plan\n```\n</details><script>alert(1)</script>\n````\n| a | b |\n"
    page = _gfm(summary_markdown(_reviewed_twice(wf, hostile), resume_hint="Resume with --approve."))
    blocks = re.findall(r"<pre[^>]*><code[^>]*>(.*?)</code></pre>", page, re.DOTALL)
    assert len(blocks) == 1 and html.unescape(blocks[0]).rstrip("\n") == hostile.rstrip("\n")
    assert "<script>" not in page
    assert page.index("Resume with --approve.") > page.index("</pre>")


def test_a_huge_artifact_is_cut_in_the_summary(wf: LoadedWorkflow) -> None:
    markdown = summary_markdown(_reviewed_twice(wf, "x" * 150_000))
    assert len(markdown) < 70_000 and "more characters]" in markdown


def test_a_finished_run_reads_as_done(wf: LoadedWorkflow) -> None:
    state = decide_gate(wf, _reviewed_twice(wf, "# Plan"), approved=True)
    state = complete_step(wf, complete_step(wf, state, "done", "Implemented"), "passed", "Green")
    markdown = summary_markdown(state)
    assert markdown.startswith("### Workflow `fix`: done") and "Waiting for review" not in markdown
