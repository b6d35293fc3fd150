"""The runner's facts are read once per entry point (issue 31 item 1): the action's process is
started as the runner starts it, with ``RunnerFacts.read`` wrapped to count its calls, and every
layer below the entry point gets the record it read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from aw_action.safe_outputs.config import CONFIG_FILE
from aw_action.safe_outputs.records import RECORDS_FILE
from tests.action.launch import Paths, action_env, write_script

COUNTING = """
import json, sys
from aw_action.environment.runner import RunnerFacts
import aw_action.action as action

calls = []
read = RunnerFacts.read.__func__

def counted(cls, env):
    import traceback
    stack = traceback.extract_stack(limit=5)[:-1]
    calls.append(" < ".join(f"{f.name}:{f.lineno}@{f.filename.rsplit('/', 2)[-1]}" for f in reversed(stack)))
    return read(cls, env)

RunnerFacts.read = classmethod(counted)
action.exit_soon = lambda code, within_s=0: None  # the test's process reports before it ends
code = action.main([])
with open(sys.argv[1], "w") as fh:
    json.dump({"code": code, "reads": len(calls), "where": calls}, fh)
"""


def _reads(tmp_path: Path, inputs: dict[str, str], files: dict[str, str] | None = None) -> dict[str, Any]:
    paths = Paths.under(tmp_path)
    for name, text in (files or {}).items():
        (paths.workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (paths.workspace / name).write_text(text)
    script = write_script(paths.workspace, [{"text": "done"}])
    env = action_env(paths, inputs, {"AW_FAUX_SCRIPT": str(script)})
    counts = tmp_path / "counts.json"
    proc = subprocess.run(
        [sys.executable, "-c", COUNTING, str(counts)],
        env=env,
        cwd=paths.workspace,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert counts.is_file(), proc.stdout + proc.stderr
    value: dict[str, Any] = json.loads(counts.read_text())
    return value


def test_a_run_reads_the_runner_s_facts_once(tmp_path: Path) -> None:
    counted = _reads(tmp_path, {"prompt": "Do it.", "model": "faux/scripted"})
    assert counted["code"] == 0
    assert counted["reads"] == 1, "\n".join(counted["where"])


def test_an_invalid_run_reads_the_runner_s_facts_once(tmp_path: Path) -> None:
    counted = _reads(tmp_path, {"prompt": "Do it.", "model": "faux/scripted", "max-turns": "many"})
    assert counted["code"] == 2
    assert counted["reads"] == 1, "\n".join(counted["where"])


def test_an_apply_reads_the_runner_s_facts_once(tmp_path: Path) -> None:
    """``mode: apply`` (a dry run: no GitHub needed): the action's read serves the command it runs."""
    record = {"type": "create_issue", "title": "Crash", "body": "b"}
    files = {
        f"artifact/{RECORDS_FILE}": json.dumps(record) + "\n",
        f"artifact/{CONFIG_FILE}": json.dumps({"safe-outputs": {"create-issue": {"max": 1}}}),
    }
    counted = _reads(tmp_path, {"mode": "apply", "safe-outputs-path": "artifact", "dry-run": "true"}, files)
    assert counted["code"] == 0
    assert counted["reads"] == 1, "\n".join(counted["where"])
