"""The action's ``mode: apply`` through the entrypoint (as the runner starts it) against the fake
GitHub: dry run without a token, refused records and exit codes, the records' text kept inert in
the step log, bad inputs named; and the mapping of a ``runner.temp`` host path into the container."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.github.paths import container_path
from aw_action.safe_outputs.config import CONFIG_FILE
from aw_action.safe_outputs.records import RECORDS_FILE
from tests.action.launch import ActionRun, run_action
from tests.safe_outputs.fake_github import FakeGitHub

CONFIG = {"safe-outputs": {"create-issue": {"title-prefix": "[bot] ", "max": 1}, "add-labels": {"allowed": ["bug"]}}}


def artifact(workspace: Path, records: list[dict[str, Any]]) -> Path:
    folder = workspace / "artifact"
    folder.mkdir(parents=True)
    (folder / RECORDS_FILE).write_text("".join(json.dumps(r) + "\n" for r in records))
    (folder / CONFIG_FILE).write_text(json.dumps(CONFIG))
    return folder


def apply(tmp: Path, records: list[dict[str, Any]], fake: FakeGitHub, **inputs: str) -> ActionRun:
    artifact(tmp / "workspace", records)
    event = tmp / "event.json"
    event.write_text(json.dumps({"action": "opened", "issue": {"number": 1}}))
    extra = {"GITHUB_API_URL": fake.url, "GITHUB_EVENT_PATH": str(event), "AW_GITHUB_WRITE_INTERVAL_MS": "0"}
    return run_action(tmp, {"mode": "apply", "safe-outputs-path": "artifact", **inputs}, extra, timeout=120)


def report(run: ActionRun) -> dict[str, Any]:
    [line] = [line for line in run.stdout.splitlines() if line.startswith('{"dry_run"')]
    value: dict[str, Any] = json.loads(line)
    return value


def test_a_dry_run_needs_no_token_and_changes_nothing(tmp_path: Path) -> None:
    fake = FakeGitHub()
    try:
        fake.add_issue()
        run = apply(tmp_path, [{"type": "create_issue", "title": "Crash", "body": "b"}], fake, **{"dry-run": "true"})
        run_requests = list(fake.requests)
    finally:
        fake.close()
    assert run.returncode == 0, run.stdout[-3000:]
    assert run_requests == []
    [item] = report(run)["items"]
    assert item["status"] == "planned" and item["title"] == "[bot] Crash"
    assert run.outputs["applied-count"] == "1" and run.outputs["created-urls"] == ""
    assert run.outputs["conclusion"] == "success" and "(dry run)" in run.summary


def test_a_refused_record_fails_the_step_but_not_the_others(tmp_path: Path) -> None:
    records = [
        {"type": "add_labels", "labels": ["wontfix"]},
        {"type": "create_issue", "title": "::warning::pwned", "body": "::error::pwned too\n::add-mask::Crash"},
    ]
    fake = FakeGitHub()
    try:
        fake.add_issue()
        run = apply(tmp_path, records, fake)
    finally:
        fake.close()
    assert run.returncode == 1
    assert run.outputs["failed-count"] == "1" and run.outputs["applied-count"] == "1"
    assert run.outputs["conclusion"] == "failure" and run.outputs["exit-code"] == "1"
    [created] = json.loads(run.outputs["created-items"])
    assert created["type"] == "create_issue" and fake.issues[created["number"]]["title"] == "[bot] ::warning::pwned"
    [error] = run.runner.named("error")
    assert "refused or failed" in error.data
    assert run.runner.named("warning") == [] and "Crash" not in {c.data for c in run.runner.named("add-mask")}


def test_a_missing_artifact_path_is_an_input_error(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"mode": "apply"})
    assert run.returncode == 2
    [error] = run.runner.named("error")
    assert error.properties.get("title") == "aw-harness: Invalid input 'safe-outputs-path'"
    absent = run_action(tmp_path / "again", {"mode": "apply", "safe-outputs-path": "nowhere"})
    assert absent.returncode == 2 and "no records file" in absent.stdout
    assert absent.outputs["exit-code"] == "2"


def test_apply_inputs_are_refused_in_run_mode(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"model": "faux/scripted", "prompt": "hi", "dry-run": "true"})
    assert run.returncode == 2
    assert run.runner.named("error")[0].properties.get("title") == "aw-harness: Invalid input 'dry-run'"


def test_a_runner_temp_host_path_is_read_at_the_containers_mount(tmp_path: Path) -> None:
    env = {"RUNNER_TEMP": "/github/runner_temp", "RUNNER_WORKSPACE": "/home/runner/work/hello"}
    ws = tmp_path
    assert container_path("/home/runner/work/_temp/so", RunnerFacts.read(env), ws) == Path("/github/runner_temp/so")
    assert container_path("so", RunnerFacts.read(env), ws) == ws / "so"
    assert container_path("/elsewhere/so", RunnerFacts.read(env), ws) == Path("/elsewhere/so")
    assert container_path("/home/runner/work/_temp/so", RunnerFacts.read({}), ws) == Path("/home/runner/work/_temp/so")
