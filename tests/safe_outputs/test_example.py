"""examples/safe-outputs: a read-only agent job records, a write job applies. Both jobs run here:
the agent job through the action's entrypoint on the scripted model (its bash calls
``aw-harness safe-output``), the apply job against the fake GitHub server."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from aw_action.safe_outputs.records import RECORDS_FILE
from tests.action.launch import FAKE_GITHUB_TOKEN, run_action
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
    download = _step(apply, "actions/download-artifact")["with"]
    assert download["name"] == upload
    applying = _step(apply, "org/aw-harness")["with"]
    assert applying == {
        "mode": "apply",
        "safe-outputs-path": download["path"],
        "config": "examples/safe-outputs/config.json",
    }
    assert "github-token" not in _step(agent, "org/aw-harness")["with"], "the agent job keeps its read-only token"
    assert not any("pip install" in str(step.get("run", "")) for step in apply["steps"])


def test_both_jobs_end_to_end(tmp_path: Path) -> None:
    """The agent job through the entrypoint without any token (its add_labels tool and its bash),
    then the apply job through the entrypoint in ``mode: apply`` against the fake GitHub."""
    agent_tmp = tmp_path / "agent"
    shutil.copytree(REPO / "examples", agent_tmp / "workspace" / "examples")
    step = _step(_workflow()["jobs"]["agent"], "org/aw-harness")
    inputs = {k: str(v) for k, v in step["with"].items() if "${{" not in str(v)}
    inputs.update({"model": "faux/scripted", "upload-artifacts": "false", "github-token": ""})  # no token at all
    env = {k: str(v) for k, v in step["env"].items() if "${{" not in str(v)}
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
    env.update(ISSUE_NUMBER="1", AW_FAUX_SCRIPT="script.json", PATH=path)
    agent = run_action(agent_tmp, inputs, env, timeout=120)
    assert agent.returncode == 0, agent.stdout[-3000:] + agent.stderr[-3000:]
    out = agent_tmp / "runner_temp" / "aw-harness"
    lines = [json.loads(line) for line in (out / RECORDS_FILE).read_text().splitlines()]
    assert [line["type"] for line in lines] == ["add_labels", "add_comment"]
    assert (out / "safe-outputs.config.json").is_file()  # the artifact carries the config
    assert "### Safe Outputs Proposed" in agent.summary

    apply_job = _workflow()["jobs"]["apply"]
    apply_tmp = tmp_path / "apply"
    workspace = apply_tmp / "workspace"
    (workspace / "examples" / "safe-outputs").mkdir(parents=True)
    shutil.copy(REPO / "examples" / "safe-outputs" / "config.json", workspace / "examples" / "safe-outputs")
    shutil.copytree(out, workspace / _step(apply_job, "actions/download-artifact")["with"]["path"])
    fake = FakeGitHub()
    try:
        fake.add_issue("App crashes")
        event = apply_tmp / "event.json"
        event.write_text(json.dumps({"action": "opened", "issue": {"number": 1}}))
        extra = {"GITHUB_API_URL": fake.url, "GITHUB_EVENT_PATH": str(event), "AW_GITHUB_WRITE_INTERVAL_MS": "0"}
        applied = run_action(apply_tmp, dict(_step(apply_job, "org/aw-harness")["with"]), extra, timeout=120)
    finally:
        fake.close()
    assert applied.returncode == 0, applied.stdout[-3000:] + applied.stderr[-3000:]
    assert [label["name"] for label in fake.issues[1]["labels"]] == ["needs-info"]
    (comment,) = fake.comments[1]
    assert comment["body"].startswith("Thanks for the report! Which version are you on")
    assert applied.outputs["conclusion"] == "success" and applied.outputs["exit-code"] == "0"
    assert applied.outputs["applied-count"] == "2" and applied.outputs["failed-count"] == "0"
    created = json.loads(applied.outputs["created-items"])
    assert [item["type"] for item in created] == ["add_comment"]
    assert applied.outputs["created-urls"] == created[0]["url"]
    assert "### Safe outputs" in applied.summary
    assert applied.stdout.startswith(f"::add-mask::{FAKE_GITHUB_TOKEN}\n"), "masked before anything is printed"
    printed = applied.stdout.split("\n", 1)[1] + applied.stderr + applied.summary
    assert FAKE_GITHUB_TOKEN not in printed
    assert applied.runner.named("error") == [] and applied.runner.named("warning") == []
