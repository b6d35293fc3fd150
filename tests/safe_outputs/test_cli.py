"""``aw-harness safe-output``: the bash path to the same records, validation and limits."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext
from aw_action.safe_outputs import CONFIG_FILE, RECORDS_FILE, safe_output_tools
from tests.safe_outputs.fake_github import FakeGitHub
from tests.safe_outputs.support import call, make_repo, records, tools_by_name

REPO = Path(__file__).resolve().parents[2]
CONFIG = {
    "safe-outputs": {
        "create-issue": {"title-prefix": "[bot] ", "max": 2},
        "add-comment": {"target": "*", "max": 1},
        "create-pull-request": None,
        "noop": None,
    }
}


def run(
    tmp: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}  # no token
    base.update(AW_OUTPUT_DIR=str(tmp / "out"), PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-m", "aw_action", "safe-output", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        cwd=cwd or tmp,
        timeout=60,
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(CONFIG))
    return path


def test_records_the_same_line_as_the_tool(tmp_path: Path, config: Path) -> None:
    done = run(tmp_path, "create-issue", "--config", str(config), "--title", "Crash", "--body", "It crashes")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "success"
    cli_line = (tmp_path / "out" / RECORDS_FILE).read_text()

    ctx = ToolContext(cwd=tmp_path, output_dir=tmp_path / "tool-out")
    tools = tools_by_name(safe_output_tools(CONFIG["safe-outputs"], ctx.output_dir, tmp_path, env={}))
    asyncio.run(call(tools["create_issue"], {"title": "Crash", "body": "It crashes"}, ctx))
    assert (ctx.output_dir / RECORDS_FILE).read_text() == cli_line


def test_the_limit_counts_what_the_tools_recorded(tmp_path: Path, config: Path) -> None:
    out = tmp_path / "out"
    tools = tools_by_name(safe_output_tools(CONFIG["safe-outputs"], out, tmp_path, env={}))
    asyncio.run(call(tools["create_issue"], {"title": "one", "body": "b"}, ToolContext(cwd=tmp_path, output_dir=out)))
    assert run(tmp_path, "create_issue", "--title", "two", "--body", "b").returncode == 0  # config beside the records
    refused = run(tmp_path, "create-issue", "--title", "three", "--body", "b")
    assert refused.returncode == 1 and refused.stdout == ""
    assert "refused: limit reached: 2 of 2 create_issue" in refused.stderr
    assert [r["title"] for r in records(out)] == ["one", "two"]


def test_input_forms(tmp_path: Path, config: Path) -> None:
    env = {"AW_SAFE_OUTPUTS_CONFIG": str(config)}
    body = "line one\nline two with 'quotes' and $VARS\n"
    assert run(tmp_path, "create-issue", "--title", "From stdin", "--body", "-", stdin=body, env=env).returncode == 0
    doc = json.dumps({"body": "json on stdin", "item_number": 7})
    assert run(tmp_path, "add-comment", ".", stdin=doc, env=env).returncode == 0
    assert run(tmp_path, "noop", "--json", '{"message": "nothing to do"}', env=env).returncode == 0
    assert records(tmp_path / "out") == [
        {"type": "create_issue", "title": "From stdin", "body": body.strip()},
        {"type": "add_comment", "body": "json on stdin", "item_number": 7},
        {"type": "noop", "message": "nothing to do"},
    ]
    assert (tmp_path / "out" / CONFIG_FILE).is_file()  # the copy the artifact carries


def test_labels_repeat_or_come_as_a_json_array(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"safe-outputs": {"add-labels": {"allowed": ["bug", "docs", "ui"]}}}))
    done = run(tmp_path, "add-labels", "--config", str(cfg), "--labels", "bug", "--labels", '["docs", "UI"]')
    assert done.returncode == 0, done.stderr
    assert records(tmp_path / "out") == [{"type": "add_labels", "labels": ["bug", "docs", "ui"]}]
    title = run(tmp_path, "create-issue", "--config", str(tmp_path / "c.json"), "--title", "[x]", "--body", "[1]")
    assert title.returncode == 1 and "create_issue is not enabled" in title.stderr  # '[1]' stays text
    refused = run(tmp_path, "add-labels", "--labels", "wontfix")
    assert refused.returncode == 1 and "label 'wontfix' is not allowed" in refused.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["create-issue", "--title", "t", "--body", "b"], "no safe-outputs config"),
        (["open-discussion", "--title", "t"], "unknown KIND 'open-discussion'"),
        ([], "name a KIND first"),
        (["create-issue", "stray"], "unexpected argument 'stray'"),
        (["create-issue", "--title"], "--title needs a value"),
        (["create-issue", "--json", "[1]"], "--json: must be a JSON object"),
    ],
)
def test_usage_errors_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    done = run(tmp_path, *args)
    assert done.returncode == 2 and message in done.stderr and done.stdout == ""


def test_a_bad_config_exits_2_naming_the_field(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text(json.dumps({"safe-outputs": {"create-issue": {"max": -5}}}))
    done = run(tmp_path, "create-issue", "--config", str(cfg), "--title", "t", "--body", "b")
    assert done.returncode == 2 and "safe-outputs.create-issue.max:" in done.stderr


def test_refused_in_gh_aw_mode(tmp_path: Path, config: Path) -> None:
    done = run(tmp_path, "noop", "--config", str(config), "--message", "x", env={"GITHUB_AW": "true"})
    assert done.returncode == 2 and "use the safeoutputs command" in done.stderr
    assert not (tmp_path / "out" / RECORDS_FILE).exists()


def test_help(tmp_path: Path) -> None:
    done = run(tmp_path, "--help")
    assert done.returncode == 0 and "create-pull-request" in done.stdout


def test_recording_needs_no_token_and_talks_to_no_api(tmp_path: Path, config: Path) -> None:
    """The agent job's environment holds no write token: recording must not need one, and must
    not call GitHub at all (the API URL points at a server that records any request)."""
    fake = FakeGitHub()
    try:
        repo = make_repo(tmp_path / "ws")
        (repo / "docs").mkdir()
        (repo / "docs" / "a.md").write_text("new\n")
        env = {"GITHUB_API_URL": fake.url, "GITHUB_REPOSITORY": "octo/hello", "AW_SAFE_OUTPUTS_CONFIG": str(config)}
        steps = [
            ("create-issue", "--title", "t", "--body", "b"),
            ("add-comment", "--body", "c", "--item-number", "3"),
            ("create-pull-request", "--title", "Add docs", "--body", "b"),  # from a subfolder of the repo
        ]
        for step in steps:
            done = run(tmp_path, *step, env=env, cwd=repo / "docs")
            assert done.returncode == 0, done.stderr
    finally:
        fake.close()
    assert fake.requests == []
    assert [r["type"] for r in records(tmp_path / "out")] == ["create_issue", "add_comment", "create_pull_request"]


def test_a_token_in_the_environment_never_reaches_a_record_or_the_output(tmp_path: Path, config: Path) -> None:
    token = "ghs_AgentJobToken0123456789abcdef"
    env: dict[str, Any] = {"GITHUB_TOKEN": token, "AW_SAFE_OUTPUTS_CONFIG": str(config)}
    done = run(tmp_path, "create-issue", "--title", f"leak {token}", "--body", f"the token is {token}", env=env)
    assert done.returncode == 0
    text = (tmp_path / "out" / RECORDS_FILE).read_text()
    assert token not in text and token not in done.stdout + done.stderr
    assert records(tmp_path / "out")[0]["body"] == "the token is ***"
