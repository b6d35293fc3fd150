"""Every example's README says how to run it offline, every example that runs on the scripted
provider ships its script, and the README's commands run as written: in a checkout (a copy of
examples/ under git), with the installed ``aw-harness`` for ``.venv/bin/`` and a temporary folder
for ``/tmp/``, no key and no network."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aw_action.ai.faux import load_script
from aw_action.run.config import RunConfig
from tests.conftest import REPO

BIN = Path(sys.executable).parent
EXAMPLES = sorted(p for p in (REPO / "examples").iterdir() if p.is_dir())
NOT_SCRIPTED = {"gh-aw"}  # a gh-aw workflow: it needs gh-aw's compiler and sandbox (its README says so)
OFFLINE = [p for p in EXAMPLES if p.name not in NOT_SCRIPTED]


def _section(folder: Path) -> str:
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "\n## Run it offline\n" in readme, f"{folder.name}/README.md has no 'Run it offline' section"
    return readme.split("\n## Run it offline\n", 1)[1].split("\n## ", 1)[0]


def _block(folder: Path) -> str:
    section = _section(folder)
    assert "```bash" in section, f"{folder.name}/README.md shows no command to run it offline"
    return section.split("```bash", 1)[1].split("```", 1)[0]


def _scripts(folder: Path) -> set[str]:
    """The scripts the offline commands and the config name."""
    named = set(re.findall(r"AW_FAUX_SCRIPT=([\w.-]+)", _block(folder)))
    config = RunConfig.model_validate(json.loads((folder / "config.json").read_text()))
    return named | ({config.harness.faux_script} if config.harness.faux_script else set())


@pytest.mark.parametrize("folder", EXAMPLES, ids=lambda p: p.name)
def test_every_example_says_how_to_run_it_offline(folder: Path) -> None:
    section = _section(folder)
    if folder.name in NOT_SCRIPTED:
        assert "does not run on its own" in section
    else:
        assert "faux/scripted" in _block(folder) or "faux/scripted" in (folder / "config.json").read_text()


def test_the_examples_index_points_to_each_readme() -> None:
    index = (REPO / "examples" / "README.md").read_text()
    assert "how to run it offline" in index
    for folder in EXAMPLES:
        assert f"[{folder.name}]({folder.name}/)" in index


@pytest.mark.parametrize("folder", OFFLINE, ids=lambda p: p.name)
def test_every_scripted_example_ships_its_script(folder: Path) -> None:
    scripts = _scripts(folder)
    assert scripts, f"{folder.name}: the offline run names a script"
    for name in scripts:
        assert load_script(folder / name), f"{folder.name}/{name}"


def _checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    shutil.copytree(REPO / "examples", root / "examples")
    shutil.copy(REPO / ".gitignore", root / ".gitignore")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "examples", ".gitignore"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "the examples"], cwd=root, check=True)
    return root


def _results(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith('{"conclusion"')]


@pytest.mark.parametrize("folder", OFFLINE, ids=lambda p: p.name)
def test_the_example_runs_offline_as_its_readme_says(tmp_path: Path, folder: Path) -> None:
    if folder.name == "node-project" and shutil.which("npm", path="/usr/bin:/bin") is None:
        pytest.skip("node-project needs node and npm in /usr/bin (none on this machine)")
    root = _checkout(tmp_path)
    block = _block(folder).replace("/tmp/", f"{tmp_path}/")  # first: the checkout itself may lie under /tmp
    block = block.replace("$PWD/.venv/bin", str(BIN)).replace(".venv/bin/", f"{BIN}/")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}  # no key, no runner
    proc = subprocess.run(["bash", "-e", "-c", block], cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = _results(proc.stdout)
    assert results and results[-1]["conclusion"] == "success", proc.stdout[-3000:]
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    )
    assert status.stdout == "", f"the example left files in the checkout:\n{status.stdout}"
    assert all(r["model"] == "faux/scripted" and r["turns"] >= 1 for r in results)
    if folder.name == "workflow-review":
        assert [r["conclusion"] for r in results] == ["paused", "success"]
        assert (root / "RELEASE_NOTES.md").read_text().startswith("# v1.1.0")
    if folder.name == "replay":
        (report,) = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith('{"replay"')]
        assert report["replay"] == "same" and report["exit_code"] == 0, report
    if folder.name == "matrix-report":
        assert [r["stop_reason"] for r in results] == ["max_turns", "completed", "completed"]
        assert "## AW Harness report" in proc.stdout
        assert "**3 runs**: 2 succeeded, 1 failed or stopped" in proc.stdout
        assert "| 1 | `aw-harness-tests` | `max_turns` | Stopped by the turn limit" in proc.stdout
        assert "```mermaid\npie showData" in proc.stdout
    if folder.name == "continue":
        assert [r["stop_reason"] for r in results] == ["completed", "completed"]
        assert '"type": "continued"' in proc.stdout and "### Continued conversation" in proc.stdout
        assert "| earlier runs (1) |" in proc.stdout and "| $0.0000 |" in proc.stdout
    if folder.name == "pr-review":
        report = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith('{"dry_run"')))
        comment, review = report["items"]
        assert (comment["type"], comment["status"], comment["review_line"]) == (
            "create_pull_request_review_comment",
            "planned",
            2,
        )
        assert (review["type"], review["event"]) == ("submit_pull_request_review", "COMMENT")
        assert [(c["path"], c["line"], c["side"]) for c in review["comments"]] == [
            ("examples/pr-review/checklist.md", 3, "RIGHT")
        ]
    if folder.name in ("python-project", "node-project"):  # the agent ran the project's tests, and they passed
        transcript = (tmp_path / f"aw-{folder.name}" / "session.jsonl").read_text()
        assert "exit code: 0" in transcript and ("Ran 3 tests" in transcript or "# pass 3" in transcript)
    if folder.name == "safe-outputs":
        report = json.loads(next(line for line in proc.stdout.splitlines() if line.startswith('{"dry_run"')))
        assert [(i["type"], i["status"]) for i in report["items"]] == [
            ("add_labels", "planned"),
            ("add_comment", "planned"),
        ]
