"""The default output folder is one later steps see, and output paths are ones they can open.

Cases from the runner's ``ContainerActionHandler`` (mounts and path translation before and after
runner 2.328), act's ``newStepContainer`` (``RUNNER_TEMP=/tmp`` in the action's container) and a
plain host run (the CLI and the tests)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aw_action.environment.runner import RunnerFacts
from aw_action.github.action_inputs import ActionInputs
from aw_action.github.paths import (
    default_output_dir,
    host_runner_temp,
    keep_out_of_git,
    runner_temp_is_shared,
    visible_path,
)
from aw_action.github.plan import build_plan

WS = Path("/github/workspace")
NEW_RUNNER = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_WORKSPACE": "/github/workspace",
    "RUNNER_TEMP": "/github/runner_temp",
    "RUNNER_WORKSPACE": "/home/runner/work/hello",
}
OLD_RUNNER = {**NEW_RUNNER, "RUNNER_TEMP": "/home/runner/work/_temp"}
ACT = {"GITHUB_ACTIONS": "true", "ACT": "true", "GITHUB_WORKSPACE": "/src/hello", "RUNNER_TEMP": "/tmp"}


@pytest.mark.parametrize(
    ("env", "workspace", "expected"),
    [
        (NEW_RUNNER, WS, Path("/github/runner_temp/aw-harness")),
        (OLD_RUNNER, WS, WS / ".aw-harness"),
        (ACT, Path("/src/hello"), Path("/src/hello/.aw-harness")),
        ({"RUNNER_TEMP": "/tmp/rt", "GITHUB_WORKSPACE": "/w"}, Path("/w"), Path("/tmp/rt/aw-harness")),
        ({}, Path("/w"), None),
    ],
    ids=["runner-2.328+", "older-runner", "act", "host", "no-runner"],
)
def test_default_output_dir_is_seen_by_later_steps(env: dict[str, str], workspace: Path, expected: Path | None) -> None:
    assert default_output_dir(RunnerFacts.read(env), workspace) == expected
    assert runner_temp_is_shared(RunnerFacts.read(env)) == (expected is not None and expected.parent != workspace)


def test_host_path_of_the_runner_temp_mount_is_the_sibling_temp_folder() -> None:
    assert str(host_runner_temp(RunnerFacts.read(NEW_RUNNER))) == "/home/runner/work/_temp"
    assert host_runner_temp(RunnerFacts.read(OLD_RUNNER)) is None
    assert host_runner_temp(RunnerFacts.read({**NEW_RUNNER, "RUNNER_WORKSPACE": ""})) is None
    assert host_runner_temp(RunnerFacts.read({**NEW_RUNNER, "RUNNER_WORKSPACE": "relative/x"})) is None


def test_visible_path_maps_the_mount_back_to_the_host(tmp_path: Path) -> None:
    path = Path("/github/runner_temp/aw-harness/session.jsonl")
    assert (
        visible_path(path, RunnerFacts.read(NEW_RUNNER), tmp_path) == "/home/runner/work/_temp/aw-harness/session.jsonl"
    )
    inside = tmp_path / ".aw-harness" / "session.jsonl"
    assert visible_path(inside, RunnerFacts.read(OLD_RUNNER), tmp_path) == ".aw-harness/session.jsonl"
    elsewhere = Path("/tmp/somewhere/session.jsonl")
    assert visible_path(elsewhere, RunnerFacts.read({"RUNNER_TEMP": "/tmp"}), tmp_path) == str(elsewhere)


def test_a_workspace_output_folder_is_ignored_by_git(tmp_path: Path) -> None:
    folder = tmp_path / ".aw-harness"
    folder.mkdir()
    keep_out_of_git(folder, tmp_path)
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    other = tmp_path / "out"
    other.mkdir()
    keep_out_of_git(other, tmp_path)  # a folder the user chose is left alone
    assert not (other / ".gitignore").exists()


def test_plan_uses_the_workspace_when_runner_temp_is_not_shared(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in [n for n in os.environ if n.upper().startswith("INPUT_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("INPUT_MODEL", "faux/scripted")
    monkeypatch.setenv("INPUT_PROMPT", "x")
    env = {"GITHUB_ACTIONS": "true", "ACT": "true", "GITHUB_WORKSPACE": str(tmp_path), "RUNNER_TEMP": "/tmp"}
    plan = build_plan(ActionInputs.from_env(), env, tmp_path)
    assert plan.output_dir == tmp_path / ".aw-harness"
    assert (plan.output_dir / ".gitignore").is_file()
    assert plan.env["AW_OUTPUT_DIR"] == str(tmp_path / ".aw-harness")


def test_the_plan_s_runner_record_is_the_one_its_harness_environment_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness gets the action's record (read once) made ``for_harness``: the same record a
    read of the environment it is given would make, runtime credentials left out."""
    monkeypatch.setenv("INPUT_MODEL", "faux/scripted")
    monkeypatch.setenv("INPUT_PROMPT", "x")
    env = {
        **NEW_RUNNER,
        "GITHUB_WORKSPACE": str(tmp_path),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_REPOSITORY": "octo/hello",
        "GITHUB_OUTPUT": str(tmp_path / "out.txt"),
        "ACTIONS_RUNTIME_TOKEN": "runtime-token",
        "ACTIONS_RESULTS_URL": "https://results.example/",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://oidc.example/",
    }
    runner = RunnerFacts.read(env)
    plan = build_plan(ActionInputs.from_env(), env, tmp_path, runner=runner)
    assert plan.runner == RunnerFacts.read(plan.env)
    assert plan.runner.output_dir == plan.output_dir and not plan.runner.runtime_token
    assert plan.runner.repository == "octo/hello" and runner.runtime_token == "runtime-token"
