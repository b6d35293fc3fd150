"""examples/safe-outputs: a read-only agent job records, a write job applies. Both jobs run here:
the agent job through the action's entrypoint on the scripted model (its bash calls
``aw-harness safe-output``), the apply job against the fake GitHub server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from aw_action.safe_outputs.records import RECORDS_FILE
from tests.action.launch import run_action
from tests.safe_outputs.fake_github import FakeGitHub

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "safe-outputs"


def _workflow() -> dict[str, Any]:
    data: dict[str, Any] = YAML(typ="safe").load((EXAMPLE / "workflow.yml").read_text())
    return data


def _step(job: dict[str, Any], uses_prefix: str) -> dict[str, Any]:
    return next(s for s in job["steps"] if str(s.get("uses", "")).startswith(uses_prefix))


def test_only_the_apply_job_can_write() -> None:
    workflow = _workflow()
    assert workflow["permissions"] == {}
    agent, apply = workflow["jobs"]["agent"], workflow["jobs"]["apply"]
    assert set(agent["permissions"].values()) == {"read"}
    assert apply["permissions"]["issues"] == "write" and apply["permissions"]["pull-requests"] == "write"
    assert apply["needs"] == "agent"
    upload = _step(agent, "org/aw-harness")["with"]["artifact-name"]
    assert _step(apply, "actions/download-artifact")["with"]["name"] == upload
    command = apply["steps"][-1]["run"]
    assert "aw-harness apply-safe-outputs" in command and "--config examples/safe-outputs/config.json" in command
    assert apply["steps"][-1]["env"] == {"GITHUB_TOKEN": "${{ github.token }}"}
    assert (REPO / _step(agent, "org/aw-harness")["env"]["AW_SAFE_OUTPUTS_CONFIG"]).is_file()


def test_both_jobs_end_to_end(tmp_path: Path) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "workspace" / "examples")
    step = _step(_workflow()["jobs"]["agent"], "org/aw-harness")
    inputs = {k: str(v) for k, v in step["with"].items() if "${{" not in str(v)}
    inputs.update({"model": "faux/scripted", "upload-artifacts": "false", "github-token": ""})  # no token at all
    env = {k: str(v) for k, v in step["env"].items() if "${{" not in str(v)}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    env.update(ISSUE_NUMBER="1", AW_FAUX_SCRIPT="script.json", PATH=path)
    agent = run_action(tmp_path, inputs, env, timeout=120)
    assert agent.returncode == 0, agent.stdout[-3000:] + agent.stderr[-3000:]
    out = tmp_path / "runner_temp" / "aw-harness"
    lines = [json.loads(line) for line in (out / RECORDS_FILE).read_text().splitlines()]
    assert [line["type"] for line in lines] == ["add_labels", "add_comment"]
    assert (out / "safe-outputs.config.json").is_file()  # the artifact carries the config

    fake = FakeGitHub()
    try:
        fake.add_issue("App crashes")
        event = tmp_path / "event.json"
        event.write_text(json.dumps({"action": "opened", "issue": {"number": 1}}))
        apply_env = {
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(REPO),
            "GITHUB_TOKEN": "ghs_ApplyJobToken0123456789abcdef",
            "GITHUB_API_URL": fake.url,
            "GITHUB_REPOSITORY": "octo/hello",
            "GITHUB_RUN_ID": "77",
            "GITHUB_EVENT_PATH": str(event),
            "AW_GITHUB_WRITE_INTERVAL_MS": "0",
        }
        config = tmp_path / "workspace" / "examples" / "safe-outputs" / "config.json"
        done = subprocess.run(
            [sys.executable, "-m", "aw_action", "apply-safe-outputs", str(out), "--config", str(config)],
            env=apply_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        fake.close()
    assert done.returncode == 0, done.stderr
    assert [label["name"] for label in fake.issues[1]["labels"]] == ["needs-info"]
    (comment,) = fake.comments[1]
    assert comment["body"].startswith("Thanks for the report! Which version are you on")
