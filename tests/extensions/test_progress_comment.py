"""The progress comment, with the real PyGithub client against a local fake of GitHub's comments
API: one comment, created at the start, updated per turn without exceeding the rate, finished
with the result and, on a failure, the explanation; what each turn ran, as inert code; the
model's prose only when the workflow asks for the answer, sanitised; a failing API never fails
the run."""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.environment.runner import RunnerFacts
from aw_action.extensions import progress_comment
from aw_action.extensions.github_comment import CommentTarget, comment_target, failure
from aw_action.harness.invocation import Harness
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.sinks.progress import MAX_TURN_LINES, CallLine, TurnLine, render_progress
from tests.action.launch import run_action, write_script
from tests.conftest import base_env, write_run_files
from tests.servers.github_comments import TOKEN, CommentsAPI
from tests.sinks.support import gfm, gfm_page

SECRET_TEXT = "Zebra-Phrase-From-The-Model"
ISSUE_COMMENT = {
    "action": "created",
    "issue": {"number": 7, "title": "bug"},
    "comment": {"body": "@aw fix"},
    # the action's trigger guard lets a named bot through without a role look-up
    "sender": {"login": "helper-bot[bot]", "type": "Bot"},
}


def progress_warnings(records: list[dict[str, Any]]) -> list[str]:
    """This extension's warnings (a run as root also warns that tools are not isolated)."""
    return [r["message"] for r in records if r["event"] == "warning" and r.get("extension") == "progress-comment"]


def _turns(n: int, delay_s: float = 0.0) -> list[dict[str, Any]]:
    """``n`` turns: each but the last runs ``echo turn <i>``; the prose says ``SECRET_TEXT``."""
    turns: list[dict[str, Any]] = [
        {
            "text": f"Step {i}: {SECRET_TEXT}",
            "tool_calls": [{"name": "bash", "arguments": {"command": f"echo turn {i}"}}],
            "delay_s": delay_s,
        }
        for i in range(1, n)
    ]
    return [*turns, {"text": f"Done. {SECRET_TEXT}", "delay_s": delay_s}]


@pytest.fixture
def api() -> Iterator[CommentsAPI]:
    server = CommentsAPI()
    yield server
    server.close()


def _event(tmp_path: Path, name: str = "issue_comment", payload: dict[str, Any] | None = None) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(ISSUE_COMMENT if payload is None else payload))
    return {"GITHUB_EVENT_PATH": str(path), "GITHUB_EVENT_NAME": name, "GITHUB_REPOSITORY": "octo/hello"}


async def _run(
    tmp_path: Path, api: CommentsAPI, turns: list[dict[str, Any]], harness: dict[str, Any] | None = None, **env: str
) -> tuple[RunResult, list[dict[str, Any]]]:
    settings = {"progress-comment": True, "budget": {"max-effective-tokens": 50000, "max-turns": 10}}
    config = {"engine": {"model": "faux/scripted"}, "harness": {**settings, **(harness or {})}}
    config_path, prompt = write_run_files(tmp_path, config, script=turns)
    full_env = base_env(tmp_path, GITHUB_API_URL=api.url, GITHUB_TOKEN=TOKEN, **{**_event(tmp_path), **env})
    stderr = io.StringIO()
    harness = Harness(config_path, prompt, full_env, stderr=stderr)
    result = await asyncio.wait_for(harness.run(), timeout=60)
    records = [json.loads(line) for line in stderr.getvalue().splitlines() if line.startswith("{")]
    return result, records


def test_the_action_keeps_one_comment_from_start_to_result(tmp_path: Path, api: CommentsAPI) -> None:
    ws = tmp_path / "workspace"
    ws.mkdir()
    script = write_script(ws, _turns(3))
    run = run_action(
        tmp_path,
        {
            "model": "faux/scripted",
            "prompt": "Do the task.",
            "progress-comment": "true",
            "max-effective-tokens": "50000",
            "github-token": TOKEN,
            "upload-artifacts": "false",
            "allowed-bots": "helper-bot",
        },
        {"AW_FAUX_SCRIPT": str(script), "GITHUB_API_URL": api.url, **_event(tmp_path)},
    )
    assert run.returncode == 0, run.stdout
    writes = api.writes()
    assert [w.method for w in writes][:1] == ["POST"] and {w.method for w in writes[1:]} <= {"PATCH"}
    assert writes[0].path == "/repos/octo/hello/issues/7/comments"
    assert len(api.comments) == 1
    body = api.comments[100]["body"]
    head = body.splitlines()[1]
    assert re.fullmatch(
        r"\*\*aw-harness\*\* · ✅ Success · Finished · in [\d.]+ s · \$0\.00 · 3 turns · `faux/scripted`", head
    )
    assert [line for line in body.splitlines() if line.startswith("- [")] == [
        "- [x] Turn 1 · `echo turn 1` ✅",
        "- [x] Turn 2 · `echo turn 2` ✅",
        "- [x] Turn 3 · answered",
    ]
    assert "[!CAUTION]" not in body and "[!WARNING]" not in body, "nothing to explain"
    usage = r"^Effective tokens: [\d,]+ of 50,000 \([\d.]+%\) · Time: [\d.]+ s of 20 min \([\d.]+%\) · \$0\.00$"
    assert re.search(usage, body, re.M)
    run_page = "https://github.com/octo/hello/actions/runs/123456"
    assert f"[Job log and summary]({run_page}) · [Artifacts]({run_page}#artifacts)" in body
    assert all(SECRET_TEXT not in (w.body or {}).get("body", "") for w in writes), "no prose unless asked for"
    assert "⏳ working" in writes[0].body["body"]
    assert not [w for w in run.runner.named("warning") if "progress" in (w.data or "")], run.stdout
    assert not [line for line in run.stdout.splitlines() if TOKEN in line and not line.startswith("::add-mask::")]


async def test_updates_are_coalesced_to_at_most_one_per_interval(
    tmp_path: Path, api: CommentsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress_comment, "MIN_INTERVAL_S", 0.6)
    result, _ = await _run(tmp_path, api, _turns(8, delay_s=0.25))
    assert result.exit_code == 0
    writes = api.writes()
    gaps = [b.at - a.at for a, b in itertools.pairwise(writes[:-1])]
    assert all(gap >= 0.6 for gap in gaps), gaps  # the final update alone may follow sooner
    assert 2 <= len(writes) < 8 + 1, "fewer writes than turns: changes are coalesced"
    assert any("⏳ working on turn" in w.body["body"] and "- [x] Turn 1" in w.body["body"] for w in writes[1:-1])
    assert "✅ Success · Finished" in writes[-1].body["body"] and len(api.comments) == 1


async def test_a_refused_comment_warns_once_degrades_and_stops_trying(tmp_path: Path, api: CommentsAPI) -> None:
    api.fail(403, message="Resource not accessible by integration")
    result, records = await _run(tmp_path, api, _turns(3))
    assert result.exit_code == 0 and result.conclusion == "success"
    assert progress_warnings(records) == [
        "progress comment on octo/hello issue #7: HTTP 403: Resource not accessible by integration; no further updates"
    ]
    assert "progress-comment" in result.record().degraded
    assert len(api.writes()) == 1
    assert records[-1]["event"] == "session_end" and records[-1]["degraded"] == ["progress-comment"]


async def test_a_failure_that_may_pass_is_retried_at_the_next_update(
    tmp_path: Path, api: CommentsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress_comment, "MIN_INTERVAL_S", 0.2)
    api.fail(502, message="Bad Gateway")
    result, records = await _run(tmp_path, api, _turns(4, delay_s=0.3))
    assert result.exit_code == 0
    assert len(progress_warnings(records)) == 1
    assert len(api.comments) == 1 and "✅ Success" in api.comments[100]["body"]


async def test_a_rate_limit_is_waited_out(tmp_path: Path, api: CommentsAPI, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_comment, "MIN_INTERVAL_S", 0.1)
    api.fail(403, message="You have exceeded a secondary rate limit", **{"Retry-After": "1"})
    result, _ = await _run(tmp_path, api, _turns(6, delay_s=0.3))
    assert result.exit_code == 0
    writes = api.writes()
    assert writes[1].at - writes[0].at >= 0.95, "no request while GitHub says to wait"
    assert "✅ Success" in api.comments[100]["body"]


async def test_a_hung_api_holds_neither_the_run_nor_its_end(
    tmp_path: Path, api: CommentsAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress_comment, "FINAL_WAIT_S", 0.5)
    api.hold()
    result, records = await _run(tmp_path, api, _turns(2))
    assert not api.release.is_set(), "the run ended while the API still held the request"
    assert result.exit_code == 0 and records[-1]["event"] == "session_end"
    assert len(api.calls) == 1, "no second request while the first (a create) may still land"
    api.release.set()


async def test_an_event_without_an_issue_or_pull_request_gets_a_warning_and_no_request(
    tmp_path: Path, api: CommentsAPI
) -> None:
    (tmp_path / "push.json").write_text(json.dumps({"ref": "refs/heads/main"}))
    result, records = await _run(
        tmp_path, api, _turns(2), GITHUB_EVENT_NAME="push", GITHUB_EVENT_PATH=str(tmp_path / "push.json")
    )
    assert result.exit_code == 0 and api.calls == []
    assert progress_warnings(records) == [
        "progress-comment is on, but the push event has no issue or pull request to comment on: no progress comment"
    ]


@pytest.mark.parametrize(
    ("name", "payload", "expected"),
    [
        ("issues", {"issue": {"number": 3}}, CommentTarget("octo/hello", 3, "issue")),
        ("issue_comment", {"issue": {"number": 4, "pull_request": {}}}, CommentTarget("octo/hello", 4, "pull request")),
        ("pull_request_target", {"pull_request": {"number": 5}}, CommentTarget("octo/hello", 5, "pull request")),
        ("pull_request_review", {"pull_request": {"number": 6}}, CommentTarget("octo/hello", 6, "pull request")),
        ("workflow_dispatch", {"inputs": {}}, "the workflow_dispatch event has no issue or pull request to comment on"),
        ("issues", {"issue": {"number": "7"}}, "the issues event has no issue or pull request to comment on"),
    ],
)  # fmt: skip
def test_the_target_comes_from_the_event(tmp_path: Path, name: str, payload: dict[str, Any], expected: Any) -> None:
    assert comment_target(RunnerFacts.read(_event(tmp_path, name, payload))) == expected


def test_an_unreadable_event_has_no_target(tmp_path: Path) -> None:
    env = _event(tmp_path)
    Path(env["GITHUB_EVENT_PATH"]).write_text("{not json")
    assert isinstance(comment_target(RunnerFacts.read(env)), str)
    assert isinstance(comment_target(RunnerFacts.read({"GITHUB_REPOSITORY": "octo/hello"})), str)


def test_failures_are_told_apart() -> None:
    from github import GithubException

    assert failure(GithubException(404, {"message": "Not Found"}, {})).permanent
    limited = failure(GithubException(403, {"message": "rate"}, {"x-ratelimit-remaining": "0"}))
    assert not limited.permanent and limited.wait_s == 60.0
    assert failure(GithubException(429, {}, {"Retry-After": "7"})).wait_s == 7.0
    assert not failure(GithubException(503, {}, {})).permanent
    assert not failure(ConnectionError("refused")).permanent


def test_the_body_keeps_the_last_turns_and_renders_as_a_task_list() -> None:
    state = RunState.for_model("faux/scripted")
    calls = [CallLine("npm test", True), CallLine("read src/app.py", True), CallLine("make", False, "exit 2")]
    turns = [TurnLine(i, [*calls, CallLine("ls", True), CallLine("pwd")], done=True) for i in range(1, 41)]
    body = render_progress(state, {}, [*turns, TurnLine(41)])
    lines = body.splitlines()
    assert re.fullmatch(
        r"\*\*aw-harness\*\* · ⏳ working on turn 41 · 0\.0 s · \$0\.00 so far · `faux/scripted`", lines[1]
    )
    assert lines[3] == f"- … {41 - MAX_TURN_LINES} earlier turns"
    assert lines[4] == "- [x] Turn 12 · `npm test` ✅ · `read src/app.py` ✅ · `make` ❌ exit 2 · `ls` ✅ · +1 more"
    assert "- [ ] Turn 41 · thinking" in lines
    html = gfm(body)
    assert html.count('type="checkbox"') == MAX_TURN_LINES and html.count("checked") == MAX_TURN_LINES - 1


def test_a_run_of_several_prompts_heads_each_steps_turns() -> None:
    state = RunState.for_model("faux/scripted")
    turns = [TurnLine(1, done=True), TurnLine(2, done=True, prompt=2), TurnLine(3, prompt=2)]
    lines = render_progress(state, {}, turns).splitlines()
    assert lines[3:8] == [
        "- **Step 1**",
        "- [x] Turn 1 · answered",
        "- **Step 2**",
        "- [x] Turn 2 · answered",
        "- [ ] Turn 3 · thinking",
    ]
    assert "Step" not in render_progress(state, {}, turns[:1])


def test_a_hostile_command_is_shown_inert() -> None:
    state = RunState.for_model("faux/scripted")
    hostile = "echo @octocat fixes #1 <img src=x onerror=alert(1)> [x](https://evil.example) `tick`\u200b" + "a" * 200
    html = gfm(render_progress(state, {}, [TurnLine(1, [CallLine(hostile, False, "exit 1")], done=True)]))
    spans = re.findall(r"<code>(.*?)</code>", html)[1:]  # after the model's name
    assert len(spans) == 1 and spans[0].startswith("echo @octocat fixes #1 &lt;img src=x") and spans[0].endswith("…")
    assert "<img" not in html and "<a " not in html and "\u200b" not in html
    assert html.count("@octocat") == 1, "only inside the code span, where GitHub makes no mention"


async def test_a_failed_run_ends_the_comment_with_the_explanation(tmp_path: Path, api: CommentsAPI) -> None:
    script = [
        {"text": f"{SECRET_TEXT} 1", "tool_calls": [{"name": "bash", "arguments": {"command": "exit 3"}}]},
        {"text": f"{SECRET_TEXT} 2", "tool_calls": [{"name": "read", "arguments": {"path": "missing.txt"}}]},
        {"text": f"{SECRET_TEXT} 3", "tool_calls": [{"name": "bash", "arguments": {"command": "echo 3"}}]},
    ]
    result, _ = await _run(tmp_path, api, script, {"budget": {"max-turns": 2}})
    assert result.stop_reason == "max_turns"
    body = api.comments[100]["body"]
    assert re.fullmatch(
        r"\*\*aw-harness\*\* · ❌ Failure · Stopped by the turn limit · in [\d.]+ s · \$0\.00 · 2 turns"
        r" · `faux/scripted`",
        body.splitlines()[1],
    )
    html = gfm(body)
    callout = re.search(r"<blockquote>\s*<p>(.*?)</p>\s*</blockquote>", html, re.S)
    assert callout, html
    assert callout.group(1).startswith("[!CAUTION]\n2 of 2 turns used (100%)")
    assert "<strong>Fix:</strong> Raise <code>harness.budget.max-turns</code> in config.json (now 2)" in callout.group(
        1
    )
    turn_lines = [line for line in body.splitlines() if line.startswith("- [")]
    assert turn_lines[0] == "- [x] Turn 1 · `exit 3` ❌ exit 3"
    assert re.fullmatch(r"- \[x\] Turn 2 · `read missing.txt` ❌ `[^`]*missing\.txt[^`]*`", turn_lines[1])
    assert len(turn_lines) == 2, "the turn the limit stopped is left out"
    assert SECRET_TEXT not in body


async def test_the_answer_is_shown_sanitised_when_asked_for(tmp_path: Path, api: CommentsAPI) -> None:
    answer = "# Fixed\n\nThe **bug** is gone; @octocat please review. Closes #9.\n\n```\nunclosed"
    result, _ = await _run(tmp_path, api, [{"text": answer}], {"progress-comment-answer": True})
    assert result.exit_code == 0
    html = gfm_page(api.comments[100]["body"])  # as GitHub renders a comment: its safe HTML kept
    shown = html.split("<h4>Answer</h4>", 1)[1]
    assert "<h5>Fixed</h5>" in shown and "<strong>bug</strong>" in shown, "rendered, its heading under the page's"
    assert "<code>@octocat</code>" in shown and "<code>Closes</code> #9" in shown, "a mention or keyword does nothing"
    assert shown.index("<blockquote>") < shown.index("<pre>"), "an unclosed fence is held in a quote"
    assert "<sub>updated " in shown.split("</blockquote>")[-1], "the footer still follows it"


async def test_the_structured_output_is_shown_as_json_when_asked_for(tmp_path: Path, api: CommentsAPI) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    harness = {"progress-comment-answer": True, "output-schema": schema}
    result, _ = await _run(tmp_path, api, [{"text": '{"ok": true}'}], harness)
    assert result.exit_code == 0
    body = api.comments[100]["body"]
    assert '#### Structured output\n\n```json\n{\n  "ok": true\n}\n```' in body
    assert "#### Answer" not in body


async def test_a_tool_name_the_model_made_up_stays_out_of_the_comment(tmp_path: Path, api: CommentsAPI) -> None:
    turns = [{"text": "Calling.", "tool_calls": [{"name": "@octo-team_ping", "arguments": {}}]}, {"text": "Done."}]
    result, _ = await _run(tmp_path, api, turns)
    assert result.exit_code == 0
    body = api.comments[100]["body"]
    assert "- [x] Turn 1 · `(unknown tool)` ❌\n" in body and "@octo" not in body
    assert "· ⚠️ Success · 1 of 1 tool call failed ·" in body
