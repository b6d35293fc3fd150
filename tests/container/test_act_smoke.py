"""The smoke workflow's matrix (.github/workflows/smoke.yml, job ``smoke``) under act, with the
image under test as ``uses: ./from-source`` and act's artifact server.

Needs ``AW_ACT`` (the act binary) and ``AW_ACT_RUNNER_IMAGE`` (an image for ``ubuntu-latest``
with bash, git, jq and python3); ``AW_ACT_DOWNLOAD_ARTIFACT`` points act at a local
actions/download-artifact where github.com is unreachable (a stand-in that unzips from
``$AW_ARTIFACT_DIR``). ``.ci/run`` sets them on machines with docker-local.sh; elsewhere this
skips, and on GitHub the smoke workflow itself runs on the real runner. The ``cancelled`` job is
left out: act never signals a step container on a timeout (docs/local-act.md).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from tests.action.launch import REPO
from tests.container import engine

ACT_IMAGE_NAME = "act-from-source-dockeraction:latest"
"""What act calls the image of ``uses: ./from-source`` (act ``execAsDocker``)."""
LEGS = ("success", "token-budget", "turn-limit")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _snapshot(dest: Path) -> None:
    """The working tree (tracked and new files) as a one-commit repository: what act checks out."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.com"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "snapshot"]):
        subprocess.run([*git, *args], cwd=dest, check=True, capture_output=True)


def test_smoke_matrix_passes_under_act(tmp_path: Path) -> None:
    act, runner_image = os.environ.get("AW_ACT"), os.environ.get("AW_ACT_RUNNER_IMAGE")
    if not act or not runner_image:
        pytest.skip("act not configured: set AW_ACT and AW_ACT_RUNNER_IMAGE (.ci/run does with docker-local.sh)")
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: act needs one")
    image = engine.image()
    engine.docker("tag", image, ACT_IMAGE_NAME)
    repo, artifacts = tmp_path / "repo", tmp_path / "artifacts"
    repo.mkdir()
    artifacts.mkdir()
    _snapshot(repo)
    argv = [
        act, "pull_request", "-W", ".github/workflows/smoke.yml", "-j", "smoke", "--rm",
        "-P", f"ubuntu-latest={runner_image}", "--pull=false", "--rebuild=false",
        "--artifact-server-path", str(artifacts), "--artifact-server-addr", "127.0.0.1",
        "--artifact-server-port", str(_free_port()),
        "--env", f"AW_ARTIFACT_DIR={artifacts}", "--container-options", f"-v {artifacts}:{artifacts}:ro",
    ]  # fmt: skip
    stand_in = os.environ.get("AW_ACT_DOWNLOAD_ARTIFACT")
    if stand_in:
        argv += ["--local-repository", f"actions/download-artifact@v4={stand_in}"]
    proc = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=900)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert log.count("Job succeeded") == len(LEGS), log[-6000:]
    for leg in LEGS:
        assert (artifacts / "1" / f"aw-smoke-{leg}-1" / f"aw-smoke-{leg}-1.zip").is_file(), leg
    sessions = re.findall(r"\| session-file=(\S+)", log)  # the step's output lines, not its script
    assert sessions == [".aw-harness/session.jsonl"] * len(LEGS), "under act the output folder is in the workspace"
    leftovers = engine.docker("ps", "-a", "-q", "--filter", "name=act-Smoke-smoke").stdout.split()
    assert not leftovers, "act left containers behind"
