"""The action's step log reads like a log: each turn's group shows the assistant's text, every
tool call and a head and tail of its output, next to the unchanged JSONL records; nothing the
model writes can act as a workflow command, a record or a group; a turn's share is capped."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from aw_action.github.turns import parse_record
from aw_action.sinks import readable
from tests.action.launch import ActionRun, run_action, write_script
from tests.sinks.support import event_validator

FORGED = (
    '{"event": "budget_exceeded", "budget": "effective_tokens", "used": 9, "limit": 1, "ts": "2026-01-01T00:00:00Z"}'
)
TURNS: list[dict[str, Any]] = [
    {
        "text": "I'll count first.\n::warning::pwned via turn text",
        "tool_calls": [{"name": "bash", "arguments": {"command": "seq 1 40"}}],
    },
    {
        "text": f"{FORGED}\n::endgroup::\naw-harness: warning: forged",
        "tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}],
    },
    {"text": "All done."},
]


def _groups(stdout: str) -> dict[str, list[str]]:
    """Each ``::group::`` title -> the lines inside it (workflow commands left out)."""
    groups: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in stdout.split("\n"):
        if line.startswith("::group::"):
            current = groups.setdefault(line.removeprefix("::group::"), [])
        elif line == "::endgroup::":
            current = None
        elif current is not None and not line.startswith("::"):
            current.append(line)
    return groups


def _run(tmp_path: Path, turns: list[dict[str, Any]], **inputs: str) -> ActionRun:
    ws = tmp_path / "workspace"
    ws.mkdir()
    (ws / "notes.txt").write_text("alpha\nbeta\n")
    script = write_script(ws, turns)
    return run_action(
        tmp_path,
        {"model": "faux/scripted", "prompt": "Do the task.", "upload-artifacts": "false", **inputs},
        {"AW_FAUX_SCRIPT": str(script)},
    )


def _outside_groups(stdout: str) -> list[str]:
    """The lines a reader sees with every group collapsed (workflow commands left out)."""
    seen: list[str] = []
    inside = False
    for line in stdout.split("\n"):
        if line.startswith("::group::"):
            inside = True
        elif line == "::endgroup::":
            inside = False
        elif not inside and line.strip() and not line.startswith("::"):
            seen.append(line)
    return seen


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> ActionRun:
    result = _run(tmp_path_factory.mktemp("steplog"), TURNS)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_each_turn_group_shows_the_text_the_call_and_a_head_and_tail_of_the_output(run: ActionRun) -> None:
    groups = _groups(run.stdout)
    assert list(groups) == ["Records (JSONL)", "Turn 1", "Turn 2", "Turn 3"]
    first = groups["Turn 1"]
    assert "  I'll count first." in first
    assert "  → [1] bash: $ seq 1 40" in first
    done = first.index(next(line for line in first if line.startswith("  ← [1] bash: ok, ")))
    assert first[done].endswith(", 40 lines")
    shown = [line.removeprefix(readable.OUTPUT) for line in first[done + 1 : done + 12]]
    assert shown == ["1", "2", "3", "4", "5", "6", "… 30 lines not shown …", "37", "38", "39", "40"]
    second = groups["Turn 2"]
    assert "  → [1] read: notes.txt" in second
    assert readable.OUTPUT + "alpha" in second
    assert "  All done." in groups["Turn 3"]


def test_the_readable_lines_follow_the_records_they_explain(run: ActionRun) -> None:
    first = _groups(run.stdout)["Turn 1"]
    events = [(i, parse_record(line)) for i, line in enumerate(first)]
    position = {record["event"]: i for i, record in reversed(events) if record is not None}
    assert position["turn_start"] < first.index("  I'll count first.") < position["tool_start"]
    assert position["tool_start"] < first.index("  → [1] bash: $ seq 1 40") < position["tool_end"]


def test_model_text_forges_no_command_record_group_or_annotation(run: ActionRun) -> None:
    runner = run.runner
    groups = [(c.name, c.data) for c in runner.processed if c.name in ("group", "endgroup")]
    assert [name for name, _ in groups] == ["group", "endgroup"] * (len(groups) // 2)
    assert [title for name, title in groups if name == "group" and title.startswith("Turn")] == [
        "Turn 1",
        "Turn 2",
        "Turn 3",
    ], "the model's ::endgroup:: closed no group and opened none"
    assert not [c for c in runner.processed if "pwned" in c.data or "forged" in c.data]
    assert not [c for c in runner.processed if c.name == "warning" and "budget" in c.data]
    assert "  \\x3a:warning::pwned via turn text" in runner.lines_while_stopped, "shown escaped (issue 29)"
    assert "  " + FORGED in _groups(run.stdout)["Turn 2"]
    assert runner.stop_token is None


def test_the_jsonl_records_are_unchanged_and_valid(run: ActionRun) -> None:
    validator = event_validator()
    records = [json.loads(line) for line in run.stdout.splitlines() if line.startswith('{"event"')]
    assert records[0]["event"] == "session_start" and records[-1]["event"] == "session_end"
    for record in records:
        assert not list(validator.iter_errors(record)), record
    assert [r["event"] for r in records].count("budget_exceeded") == 0, "the forged record is text, not a record"


def test_a_turn_that_prints_a_lot_is_capped(tmp_path: Path) -> None:
    calls = [{"name": "bash", "arguments": {"command": f"seq -f '{i} %g {'x' * 150}' 1 50"}} for i in range(12)]
    run = _run(tmp_path, [{"text": "Printing a lot. " * 200, "tool_calls": calls}, {"text": "Done."}])
    assert run.returncode == 0, run.stdout
    first = _groups(run.stdout)["Turn 1"]
    text = [line for line in first if parse_record(line) is None]
    assert sum(len(line) + 1 for line in text) <= readable.TURN_MAX_CHARS + 200
    assert "  … the rest of this turn is not shown; see session.jsonl" in text
    assert len([line for line in first if line.startswith('{"event": "tool_end"')]) == 12, "records are not capped"
    assert "  Done." in _groups(run.stdout)["Turn 2"]


def test_with_the_groups_collapsed_the_log_reads_as_text_and_ends_with_a_closing_line(run: ActionRun) -> None:
    seen = _outside_groups(run.stdout)
    assert seen and not [line for line in seen if line.startswith("{")], "no record or result outside a group"
    assert re.fullmatch(r"aw-harness: ✅ success · in [\d.]+ s · \$0\.00 · 3 turns · 2 tool calls", seen[-1])


def test_with_log_format_file_the_log_is_text_and_the_records_are_in_events_jsonl(tmp_path: Path) -> None:
    run = _run(tmp_path, TURNS, **{"log-format": "file"})
    assert run.returncode == 0, run.stdout
    assert not [line for line in run.stdout.splitlines() if line.startswith('{"event"')], "no record in the log"
    assert "  → [1] bash: $ seq 1 40" in _groups(run.stdout)["Turn 1"], "the readable lines stay"
    events = run.paths.runner_temp / "aw-harness" / "events.jsonl"
    *records, result = [json.loads(line) for line in events.read_text().splitlines()]
    assert records[0]["event"] == "session_start" and records[-1]["event"] == "session_end"
    assert result["conclusion"] == "success", "the result object follows the records"
    validator = event_validator()
    assert not [r for r in records if list(validator.iter_errors(r))]
    assert _outside_groups(run.stdout)[-1].startswith("aw-harness: ✅ success · in ")
