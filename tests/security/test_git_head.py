"""The harness's own git on the workspace (``security/confinement/git_head.py``: the replay record's commit,
the fork check) runs nothing the workspace planted: not a ``git`` on a ``PATH`` entry inside it,
not a program its ``.git/config`` names; and it answers the real commit."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aw_action.security.confinement.git_head import head_commit

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
