"""The CLI's last stderr line says how the run ended in people's units and, unless it simply
succeeded, why and the fix, in the same words as the step summary's callout and the progress
comment's (``run/explain.py`` writes them once). Real runs of the scripted model."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers.github_comments import TOKEN, CommentsAPI
from tests.sinks.support import BUDGET_SCRIPT, gfm_page, scripted_run

LISTING = [{"text": "Listing.", "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}, {"text": "Done."}]


def last_line(stderr: str) -> str:
    return stderr.rstrip("\n").splitlines()[-1]


@pytest.mark.parametrize(
    ("script", "config", "expected"),
    [
        (LISTING, {}, r"aw-harness: ✅ success · in [\d.]+ s · \$0\.00 · 2 turns · 1 tool call"),
        (
            BUDGET_SCRIPT,
            {"harness": {"budget": {"max-effective-tokens": 4000}}},
            r"aw-harness: ❌ failure · Stopped by the effective-token limit · in [\d.]+ s · \$0\.00 · 2 turns · "
            r"2 tool calls\. 2,000 of 4,000 effective tokens used \(\d+%\); the next request was not sent: .+ "
            r"Fix: Raise harness\.budget\.max-effective-tokens in config\.json \(now 4,000\) or narrow the task\.",
        ),
        (
            BUDGET_SCRIPT,
            {"harness": {"budget": {"max-turns": 2}}},
            r"aw-harness: ❌ failure · Stopped by the turn limit · .+\. 2 of 2 turns used \(100%\); the agent had not "
            r"finished when its last turn ended\. Fix: Raise harness\.budget\.max-turns in config\.json \(now 2\) .+",
        ),
        (
            [{"text": "Thinking.", "delay_s": 30}],
            {"timeout-minutes": 0.05},
            r"aw-harness: ❌ failure · Time limit reached · in [\d.]+ s · .+\. The run stopped after [\d.]+ s of its "
            r"0\.05 min \(\d+%\): .+ Fix: Raise timeout-minutes in config\.json \(now 0\.05 min\) or narrow the task\.",
        ),
    ],
    ids=["success", "effective-tokens", "turns", "timeout"],
)
def test_the_last_line_says_how_it_ended_and_the_fix(
    tmp_path: Path, script: list[dict[str, Any]], config: dict[str, Any], expected: str
) -> None:
    run = scripted_run(tmp_path, script, config)
    assert re.fullmatch(expected, last_line(run.stderr)), last_line(run.stderr)


@pytest.fixture
def api() -> Iterator[CommentsAPI]:
    server = CommentsAPI()
    yield server
    server.close()


def _callout(markdown: str) -> str:
    """The text of the first alert, as a reader sees it (tags dropped, one line)."""
    found = re.search(r"<blockquote>\s*<p>\[!\w+\](.*?)</p>", gfm_page(markdown), re.S)
    assert found, markdown
    return html.unescape(" ".join(re.sub(r"<[^>]+>", "", found.group(1)).split()))


def test_the_summary_the_comment_and_the_last_line_give_one_explanation(tmp_path: Path, api: CommentsAPI) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"issue": {"number": 7}}))
    config = {"harness": {"progress-comment": True, "budget": {"max-turns": 2}}}
    env = {
        "GITHUB_API_URL": api.url,
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_EVENT_NAME": "issues",
        "GITHUB_REPOSITORY": "octo/hello",
    }
    run = scripted_run(tmp_path, BUDGET_SCRIPT, config, **env)
    assert run.result["stop_reason"] == "max_turns"
    why = "2 of 2 turns used (100%); the agent had not finished when its last turn ended."
    fix = "Fix: Raise harness.budget.max-turns in config.json (now 2) or narrow the task."
    said = f"{why} {fix}"
    assert _callout((tmp_path / "summary.md").read_text()) == said
    assert _callout(api.comments[100]["body"]) == said
    assert last_line(run.stderr).endswith(f". {said}")
