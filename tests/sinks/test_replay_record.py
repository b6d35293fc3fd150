"""``replay.jsonl``: what a replay needs that the transcript does not hold, written by every run:
the header (format, version, the model and the config as resolved, the workspace's starting
commit, what varies), each answered request's reply in order with its turn and purpose, and the
end; listed in ``records.sha256``; in gh-aw mode too."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.events import MessageEnd
from aw_action.ai.catalog import resolve_model
from aw_action.ai.types import UserMessage
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.result import RunResult
from aw_action.run.state import RunState
from aw_action.security.confinement import git_head
from aw_action.sinks.record_writer import SessionInfo, WriterContext
from aw_action.sinks.replay_format import FORMAT, VARYING_PATTERNS
from aw_action.sinks.replay_record import ReplayRecord, harness_version
from tests.conftest import base_env, run_cli, write_run_files
from tests.replay.rig import lines, make_workspace

TURNS = [
    {
        "text": "Listing.",
        "thinking": "first, look",
        "tool_calls": [{"name": "bash", "arguments": {"command": "ls"}, "id": "call_a"}],
    },
    {"text": "Done."},
]


def recorded(tmp: Path, **env: str) -> tuple[Path, list[dict[str, Any]]]:
    workspace = make_workspace(tmp / "ws")
    config = {"engine": {"id": "aw", "model": "faux/scripted"}, "harness": {"budget": {"max-turns": 5}}}
    cfg, prompt = write_run_files(tmp, config, "List the files.", TURNS)
    args = ["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"]
    run = run_cli(args, base_env(tmp, GH_AW_MAX_TURNS="3", **env), cwd=workspace)
    assert run.returncode == 0, run.stderr
    return tmp / "out", lines(tmp / "out" / "replay.jsonl")


def test_the_header_holds_the_config_as_resolved_and_the_starting_commit(tmp_path: Path) -> None:
    out, rows = recorded(tmp_path)
    header = rows[0]
    assert (header["type"], header["format"], header["harness"]) == ("header", FORMAT, harness_version())
    assert header["model"]["provider"] == "faux" and header["model"]["id"] == "scripted"
    assert header["config"]["harness"]["budget"]["max-turns"] == 5 and header["config"]["timeout-minutes"] == 20
    head = (tmp_path / "ws" / ".git" / "refs" / "heads").glob("*")
    assert header["workspace"] == {"path": str(tmp_path / "ws"), "commit": next(head).read_text().strip()}
    varies = header["varies"]
    assert varies["workspace"] == str(tmp_path / "ws") and varies["output-dir"] == str(out)
    assert varies["tmpdir"].startswith("/tmp/aw-tools-") and varies["session-id"] == header["session_id"]
    assert header["patterns"] == list(VARYING_PATTERNS) and header["replay_of"] is None


def test_each_reply_is_recorded_whole_in_order_then_the_end(tmp_path: Path) -> None:
    out, rows = recorded(tmp_path)
    replies = rows[1:-1]
    assert [(r["index"], r["turn"], r["purpose"]) for r in replies] == [(1, 1, "agent"), (2, 2, "agent")]
    first = replies[0]["message"]
    assert [b["type"] for b in first["content"]] == ["thinking", "text", "toolCall"]
    assert first["content"][2]["id"] == "call_a" and first["usage"]["input"] > 0 and first["stop_reason"] == "toolUse"
    assert rows[-1] == {"type": "end", "stop_reason": "completed", "turns": 2, "requests": 2}
    manifest = (out / "records.sha256").read_text()
    assert f"{hashlib.sha256((out / 'replay.jsonl').read_bytes()).hexdigest()}  replay.jsonl" in manifest


@pytest.mark.parametrize("gh_aw", [True, False], ids=["gh-aw", "standalone"])
def test_every_mode_records_it(tmp_path: Path, gh_aw: bool) -> None:
    _, rows = recorded(tmp_path, **({"GITHUB_AW": "true"} if gh_aw else {}))
    assert rows[0]["type"] == "header" and rows[-1]["type"] == "end"
    assert rows[0]["config"]["harness"]["budget"]["max-turns"] == (3 if gh_aw else 5), "the stricter GH_AW limit"


@pytest.mark.parametrize(("source", "offered"), [("prompt", True), ("workflow:plan", False)])
def test_the_summary_offers_a_replay_only_of_a_run_a_replay_can_drive(
    tmp_path: Path, source: str, offered: bool
) -> None:
    state = RunState.for_model("faux/scripted")
    writer = ReplayRecord(WriterContext(tmp_path, Redactor([]), state))
    env = {"GITHUB_RUN_ID": "77", "GITHUB_REPOSITORY": "octo/repo", "PATH": os.environ["PATH"]}
    config = RunConfig.model_validate({"engine": {"model": "faux/scripted"}})
    writer.start(
        SessionInfo("s-1", str(tmp_path), "faux/scripted", env, config, resolve_model("faux/scripted"), tmp_path)
    )
    writer.on_event(MessageEnd(UserMessage.of("do it", source=source)))
    writer.finish(RunResult.ended("completed", "faux/scripted", state))
    commands = state.record.replay_commands
    assert (commands is not None) == offered
    if commands is not None:
        assert (commands.run_id, commands.repository) == ("77", "octo/repo")


def test_the_header_takes_the_commit_asked_as_the_run_started_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = make_workspace(tmp_path / "ws")
    real = next((workspace / ".git" / "refs" / "heads").glob("*")).read_text().strip()
    state = RunState.for_model("faux/scripted")
    monkeypatch.setattr(git_head, "head_commit", lambda _workspace, started=None: "a" * 40)  # what the query's git said
    state.record.workspace_commit = git_head.HeadCommitQuery(workspace)
    config = RunConfig.model_validate({"engine": {"model": "faux/scripted"}})
    model = resolve_model("faux/scripted")
    headers: list[dict[str, Any]] = []
    for n in (1, 2):  # a workflow's two sessions: the second asks git itself
        writer = ReplayRecord(WriterContext(tmp_path / f"out{n}", Redactor([]), state))
        (tmp_path / f"out{n}").mkdir()
        writer.start(SessionInfo(f"s-{n}", str(workspace), "faux/scripted", {}, config, model, tmp_path))
        writer.finish(RunResult.ended("completed", "faux/scripted", state))
        headers.append(lines(tmp_path / f"out{n}" / "replay.jsonl")[0])
    assert [h["workspace"]["commit"] for h in headers] == ["a" * 40, real]
    assert state.record.workspace_commit is None
