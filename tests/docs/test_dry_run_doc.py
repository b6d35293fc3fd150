"""docs/safe-outputs.md's apply command with ``--dry-run`` runs as the page says: nothing but the
records and the config, with no token, no ``GITHUB_REPOSITORY`` and no event."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

DOC = (REPO / "docs" / "safe-outputs.md").read_text(encoding="utf-8")
AW_HARNESS = Path(sys.executable).parent / "aw-harness"
CONFIG = REPO / "examples" / "safe-outputs" / "config.json"


def _documented_command(records: Path) -> list[str]:
    match = re.search(r"```bash\n(aw-harness apply-safe-outputs [^\n]*)\n```", DOC)
    assert match, "docs/safe-outputs.md shows the apply command"
    words = shlex.split(match.group(1))
    assert words[:6] == ["aw-harness", "apply-safe-outputs", "PATH", "[--config", "CONFIG]", "[--dry-run]"]
    return [str(AW_HARNESS), words[1], str(records), "--config", str(CONFIG), "--dry-run"]


def _dry_run(tmp_path: Path, *records: dict[str, object]) -> subprocess.CompletedProcess[str]:
    folder = tmp_path / "artifact"
    folder.mkdir()
    (folder / "safe-outputs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}  # no token, repository or event
    return subprocess.run(_documented_command(folder), env=env, capture_output=True, text=True, timeout=120)


def test_a_dry_run_needs_nothing_but_the_records(tmp_path: Path) -> None:
    run = _dry_run(
        tmp_path,
        {"type": "add_labels", "labels": ["needs-info"]},
        {"type": "add_comment", "body": "Which version?"},
        {"type": "create_issue", "title": "Follow up", "body": "Details."},
    )
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["dry_run"] is True and report["repository"] == "OWNER/REPO"
    assert [(i["type"], i["status"]) for i in report["items"]] == [
        ("add_labels", "planned"),
        ("add_comment", "planned"),
        ("create_issue", "planned"),
    ]
    assert all("number" not in i for i in report["items"])
    assert report["items"][2]["title"] == "[triage] Follow up"
    assert "https://github.com/OWNER/REPO/actions/runs/local" in report["items"][1]["body"]
    assert len(report["assumed"]) == 2
    assert run.stderr.splitlines() == [f"aw-harness apply-safe-outputs: dry run: {a}" for a in report["assumed"]]


def test_a_record_that_would_be_refused_still_exits_1(tmp_path: Path) -> None:
    run = _dry_run(tmp_path, {"type": "add_labels", "labels": ["wontfix"]})
    assert run.returncode == 1
    (item,) = json.loads(run.stdout)["items"]
    assert item["status"] == "refused" and "wontfix" in item["error"]


def test_a_real_apply_still_needs_the_repository_and_the_token(tmp_path: Path) -> None:
    folder = tmp_path / "artifact"
    folder.mkdir()
    (folder / "safe-outputs.jsonl").write_text(json.dumps({"type": "noop", "message": "nothing"}) + "\n")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    command = [str(AW_HARNESS), "apply-safe-outputs", str(folder), "--config", str(CONFIG)]
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "GITHUB_REPOSITORY must be owner/name" in run.stderr
    run = subprocess.run(command, env={**env, "GITHUB_REPOSITORY": "o/r"}, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "GITHUB_TOKEN is not set" in run.stderr
