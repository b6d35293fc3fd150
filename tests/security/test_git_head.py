"""The harness's own git on the workspace (``security/confinement/git_head.py``: the replay record's commit,
the fork check) runs nothing the workspace planted: not a ``git`` on a ``PATH`` entry inside it,
not a program its ``.git/config`` names; and it answers the real commit, asked in line or on a thread
as the run starts (``HeadCommitQuery``)."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from aw_action.security.confinement import git_head
from aw_action.security.confinement.git_head import HeadCommitQuery, head_commit

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]


def test_a_planted_git_and_a_hostile_config_run_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=workspace, check=True)
    (workspace / "a.txt").write_text("a\n")
    subprocess.run([*GIT, "add", "a.txt"], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-qm", "base"], cwd=workspace, check=True)
    real = subprocess.run(["git", "rev-parse", "HEAD"], cwd=workspace, capture_output=True, text=True).stdout.strip()
    marker = tmp_path / "pwned"
    evil = workspace / "git"
    evil.write_text(f"#!/bin/sh\ntouch {marker}\necho 0000000000000000000000000000000000000000\n")
    evil.chmod(0o755)
    script = workspace / "hook.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    subprocess.run(["git", "config", "core.fsmonitor", str(script)], cwd=workspace, check=True)
    subprocess.run(["git", "config", "core.hooksPath", str(workspace)], cwd=workspace, check=True)
    monkeypatch.setenv("PATH", f"{workspace}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    assert head_commit(workspace) == real
    assert not marker.exists(), "a program the workspace planted ran for the harness"


def test_the_query_asks_on_a_thread_and_answers_what_git_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    asked = threading.Event()
    go_on = threading.Event()

    def slow_git(workspace: Path) -> str | None:
        asked.set()
        assert go_on.wait(10)
        return f"commit of {workspace.name}"

    monkeypatch.setattr(git_head, "head_commit", slow_git)
    query = HeadCommitQuery(tmp_path / "ws")
    assert asked.wait(10), "the query did not start git as it was made"
    go_on.set()  # made and returned while git still ran: the run goes on meanwhile
    assert query.answer() == "commit of ws" and query.answer() == "commit of ws"


def test_what_the_query_raised_is_raised_where_the_answer_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_workspace: Path) -> str | None:
        raise RuntimeError("no probe")

    monkeypatch.setattr(git_head, "head_commit", broken)
    with pytest.raises(RuntimeError, match="no probe"):
        HeadCommitQuery(Path("/nonexistent")).answer()


def test_the_query_answers_the_real_commit_and_none_outside_a_repository(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    assert HeadCommitQuery(workspace).answer() is None
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=workspace, check=True)
    subprocess.run([*GIT, "commit", "-q", "--allow-empty", "-m", "base"], cwd=workspace, check=True)
    real = subprocess.run(["git", "rev-parse", "HEAD"], cwd=workspace, capture_output=True, text=True).stdout.strip()
    assert HeadCommitQuery(workspace).answer() == real
