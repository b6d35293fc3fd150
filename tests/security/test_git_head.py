"""The harness's own git on the workspace (``security/confinement/git_head.py``: the replay record's commit,
the fork check) runs nothing the workspace planted: not a ``git`` on a ``PATH`` entry inside it,
not a program its ``.git/config`` names; and it answers the real commit, asked in line or on a thread
as the run starts (``HeadCommitQuery``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from aw_action.security.confinement import git_head
from aw_action.security.confinement.git_head import HeadCommitQuery, head_commit
from tests.conftest import base_env, run_cli, write_run_files
from tests.procfs import processes

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

    def slow_git(workspace: Path, started: object = None) -> str | None:
        asked.set()
        assert go_on.wait(10)
        return f"commit of {workspace.name}"

    monkeypatch.setattr(git_head, "head_commit", slow_git)
    query = HeadCommitQuery(tmp_path / "ws")
    assert asked.wait(10), "the query did not start git as it was made"
    go_on.set()  # made and returned while git still ran: the run goes on meanwhile
    assert query.answer() == "commit of ws" and query.answer() == "commit of ws"


def test_what_the_query_raised_is_raised_where_the_answer_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(_workspace: Path, started: object = None) -> str | None:
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


def fifo_head_repository(workspace: Path) -> Path:
    """A repository whose ``HEAD`` is a FIFO: git waits on it for a writer that never comes."""
    workspace.mkdir()
    subprocess.run([*GIT, "init", "-q", "-b", "main"], cwd=workspace, check=True)
    (workspace / ".git" / "HEAD").unlink()
    os.mkfifo(workspace / ".git" / "HEAD")
    return workspace


def gits_in(workspace: Path) -> list[int]:
    """Live git processes whose working directory is ``workspace``."""
    found = []
    for process in processes():
        with contextlib.suppress(OSError):
            if os.readlink(process.path / "cwd") == str(workspace) and b"git" in (process.read("cmdline") or b""):
                found.append(process.pid)
    return found


def test_a_run_that_ends_before_reading_the_query_leaves_no_git_behind(tmp_path: Path) -> None:
    workspace = fifo_head_repository(tmp_path / "ws")
    query = HeadCommitQuery(workspace)
    deadline = time.monotonic() + 10
    while not gits_in(workspace) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert gits_in(workspace), "git never started"
    started = time.monotonic()
    query.cancel()
    assert time.monotonic() - started < git_head.TIMEOUT_S / 2, "cancel waited for git's own timeout"
    assert gits_in(workspace) == [], "git outlived the run that asked it"
    assert query.answer() is None


def test_a_run_refused_while_it_starts_leaves_no_git_behind(tmp_path: Path) -> None:
    """The query starts before the run's assembly; a run refused there (no key for its model)
    never writes its replay header, and its git, waiting on a FIFO ``HEAD``, ends with it."""
    workspace = fifo_head_repository(tmp_path / "ws")
    cfg, prompt = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "claude-sonnet-4.6"}}, "Say hi.")
    try:
        run = run_cli(["--config", str(cfg), "--prompt", str(prompt)], base_env(tmp_path), cwd=workspace)
        assert run.returncode == 2 and "ANTHROPIC_API_KEY" in run.stderr, run.stderr
        assert gits_in(workspace) == [], "git outlived the run that asked it"
    finally:
        for pid in gits_in(workspace):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_a_query_cancelled_before_git_started_kills_git_as_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by review: ``cancel`` knew only the gits already started; one the thread started
    after it ran to git's own timeout (10 s) while the run's end waited for the thread."""
    workspace = fifo_head_repository(tmp_path / "ws")
    real = git_head.head_commit
    go = threading.Event()

    def late(where: Path, started: git_head.spawn.Started | None = None) -> str | None:
        assert go.wait(10)
        return real(where, started=started)

    monkeypatch.setattr(git_head, "head_commit", late)
    query = HeadCommitQuery(workspace)
    threading.Timer(0.2, go.set).start()  # git starts while cancel() below waits for the thread
    began = time.monotonic()
    try:
        query.cancel()
        assert time.monotonic() - began < git_head.TIMEOUT_S / 2, "cancel waited for git's own timeout"
        assert gits_in(workspace) == [], "git outlived the run that asked it"
    finally:
        go.set()
        for pid in gits_in(workspace):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def test_without_a_thread_to_be_had_the_query_asks_in_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_thread(_self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(git_head, "head_commit", lambda _workspace, started=None: "c" * 40)
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    query = HeadCommitQuery(tmp_path)
    query.cancel()  # nothing runs: returns at once
    assert query.answer() == "c" * 40
