"""Moving an earlier run's files aside: named after that run from its own records, nothing lost,
nothing but the listed files touched, nothing read that could block or lead elsewhere."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from aw_action.harness.run_files import run_files
from aw_action.sinks.previous_run import PREVIOUS_RUNS_DIR, RunFiles, move_aside, run_name

FILES = RunFiles(("session.jsonl", "token-usage.jsonl", "aw_session.jsonl"), ("bash-*.log",))
HEADER = {"type": "session", "version": 1, "id": "8c724e44-a4d5-444f", "timestamp": "2026-11-30T20:15:46.851Z"}


def _jsonl(path: Path, *records: dict[str, object]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_an_empty_or_missing_folder_has_nothing_to_move(tmp_path: Path) -> None:
    assert move_aside(tmp_path, FILES) is None
    assert move_aside(tmp_path / "missing", FILES) is None
    assert list(tmp_path.iterdir()) == []


def test_the_files_move_whole_into_a_folder_named_after_the_run(tmp_path: Path) -> None:
    _jsonl(tmp_path / "session.jsonl", HEADER, {"type": "message"})
    _jsonl(tmp_path / "token-usage.jsonl", {"timestamp": "2026-11-30T20:15:47.000Z"})
    (tmp_path / "bash-0123abcd.log").write_text("spill")
    (tmp_path / "agent_cli_start_ms.txt").write_text("1")  # someone else's file
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    target = move_aside(tmp_path, FILES)
    assert target == tmp_path / PREVIOUS_RUNS_DIR / "20261130T201546Z-8c724e44"
    assert {p.name: p.read_bytes() for p in target.iterdir()} == {
        k: v for k, v in before.items() if k != "agent_cli_start_ms.txt"
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent_cli_start_ms.txt", PREVIOUS_RUNS_DIR]


def test_the_name_falls_back_to_other_records_then_to_the_files_time(tmp_path: Path) -> None:
    unified = tmp_path / "aw_session.jsonl"
    _jsonl(
        unified,
        {"type": "session.format", "data": {"version": 1}},
        {"type": "session.start", "timestamp": "2026-01-02T03:04:05Z", "data": {"sessionId": "abcdef12-3"}},
    )
    assert run_name([unified]) == "20260102T030405Z-abcdef12"
    usage = tmp_path / "token-usage.jsonl"
    _jsonl(usage, {"timestamp": 1767323045000})
    assert run_name([usage]) == "20260102T030405Z-unknown"
    bare = tmp_path / "bash-1.log"
    bare.write_text("not json")
    os.utime(bare, (0, 86400))
    assert run_name([bare]) == "19700102T000000Z-unknown"


def test_a_hostile_session_id_cannot_leave_the_folder(tmp_path: Path) -> None:
    _jsonl(tmp_path / "session.jsonl", {**HEADER, "id": "../../../etc/x"})
    target = move_aside(tmp_path, FILES)
    assert target is not None and target.parent == tmp_path / PREVIOUS_RUNS_DIR
    assert target.name == "20261130T201546Z-etcx"


def test_a_taken_name_gets_a_suffix(tmp_path: Path) -> None:
    first = second = None
    for _ in range(2):
        _jsonl(tmp_path / "session.jsonl", HEADER)
        first, second = second, move_aside(tmp_path, FILES)
    assert first is not None and second is not None
    assert second.name == first.name + "-2"
    assert (first / "session.jsonl").is_file() and (second / "session.jsonl").is_file()


def test_a_link_is_moved_not_followed_and_a_fifo_or_folder_stays_unread(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("not a record")
    out = tmp_path / "out"
    out.mkdir()
    (out / "session.jsonl").symlink_to(elsewhere)
    os.mkfifo(out / "token-usage.jsonl")
    (out / "aw_session.jsonl").mkdir()
    started = time.monotonic()
    target = move_aside(out, FILES)
    assert time.monotonic() - started < 30, "a FIFO must never be opened"
    assert target is not None and target.name.endswith("-unknown")
    assert (target / "session.jsonl").is_symlink() and elsewhere.read_text() == "not a record"
    assert (out / "token-usage.jsonl").exists() and (out / "aw_session.jsonl").is_dir()


def test_a_file_that_cannot_move_is_an_error_and_nothing_is_lost(tmp_path: Path) -> None:
    _jsonl(tmp_path / "session.jsonl", HEADER)
    (tmp_path / PREVIOUS_RUNS_DIR).write_text("in the way")
    with pytest.raises(OSError):
        move_aside(tmp_path, FILES)
    assert json.loads((tmp_path / "session.jsonl").read_text()) == HEADER


def test_in_gh_aw_mode_the_safe_output_files_are_gh_aws() -> None:
    plain, gh_aw = run_files({}), run_files({"GITHUB_AW": "true"})
    for name in ("session.jsonl", "token-usage.jsonl", "aw_session.jsonl", "context-provenance.jsonl"):
        assert plain.matches(name) and gh_aw.matches(name)
    assert plain.matches("agent-session.jsonl") and plain.matches("bash-0123456789abcdef.log")
    for name in ("safe-outputs.jsonl", "safe-outputs.config.json", "aw-fix-bug.patch"):
        assert plain.matches(name) and not gh_aw.matches(name)
    assert not plain.matches(".gitignore") and not plain.matches("prompt.txt")
