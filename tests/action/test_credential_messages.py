"""A missing credential is reported in the terms of the one who must fix it: the action names
its input, the CLI the variable; on a fork's pull request both say why the secret is empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.action.launch import run_action
from tests.conftest import base_env, run_cli, write_run_files

FORK_EVENT = {
    "pull_request": {
        "number": 7,
        "base": {"ref": "main", "sha": "a" * 40, "repo": {"full_name": "octo/hello"}},
        "head": {"ref": "patch-1", "sha": "b" * 40, "repo": {"full_name": "stranger/hello"}},
    },
    "repository": {"full_name": "octo/hello"},
    # pull_request_target passes the trigger guard only for an allowed actor: a bot the inputs name
    "sender": {"login": "renovate[bot]", "type": "Bot"},
}
NO_KEY_TITLE = "aw-harness: No credentials for the model"
SAME_REPO_EVENT = {
    "pull_request": {
        "number": 8,
        "base": {"ref": "main", "sha": "a" * 40, "repo": {"full_name": "octo/hello"}},
        "head": {"ref": "patch-2", "sha": "c" * 40, "repo": {"full_name": "octo/hello"}},
    },
    "repository": {"full_name": "octo/hello"},
}


def _event(tmp_path: Path, event: dict[str, object] | None, name: str = "pull_request") -> dict[str, str]:
    if event is None:
        return {"GITHUB_EVENT_NAME": "push"}
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    return {"GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path)}


def _action(tmp_path: Path, event: dict[str, object] | None, name: str = "pull_request") -> tuple[str, str]:
    inputs = {"model": "sonnet", "prompt": "Review it.", "upload-artifacts": "false", "allowed-bots": "renovate"}
    run = run_action(tmp_path, inputs, _event(tmp_path, event, name))
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.outputs["stop-reason"] == "invocation_error" and run.outputs["exit-code"] == "2"
    [error] = [c.data for c in run.runner.named("error") if c.properties.get("title") == NO_KEY_TITLE]
    return error, run.summary


def test_the_action_names_its_input(tmp_path: Path) -> None:
    error, summary = _action(tmp_path, None)
    assert error.startswith(
        "No key for model anthropic/claude-sonnet-4-6 was given. Fix: Set the anthropic-api-key input"
    )
    assert "e.g. anthropic-api-key: ${{ secrets.ANTHROPIC_API_KEY }} under the step's with:" in error
    assert "(or ANTHROPIC_AUTH_TOKEN in the step's env)" in error  # the bearer variable has no input
    assert "fork" not in error
    assert "**Fix:** Set the `anthropic-api-key` input" in summary


def test_the_action_on_a_forks_pull_request_says_secrets_are_not_passed(tmp_path: Path) -> None:
    error, summary = _action(tmp_path, FORK_EVENT)
    assert "Fix: Set the anthropic-api-key input" in error
    assert "this run is for a pull request from stranger/hello, and GitHub passes no secrets" in error
    assert "(pull_request event)" in error and "pull_request_target" in error
    assert "GitHub passes no secrets" in summary


@pytest.mark.parametrize(("event", "name"), [(SAME_REPO_EVENT, "pull_request"), (FORK_EVENT, "pull_request_target")])
def test_no_fork_hint_where_secrets_are_passed(tmp_path: Path, event: dict[str, object], name: str) -> None:
    error, _ = _action(tmp_path, event, name)
    assert "Fix: Set the anthropic-api-key input" in error and "passes no secrets" not in error


def test_the_cli_names_the_variables_and_gives_the_fork_hint_too(tmp_path: Path) -> None:
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "sonnet"}})
    env = base_env(tmp_path, **_event(tmp_path, FORK_EVENT))
    run = run_cli(["--config", str(config), "--prompt", str(prompt)], env)
    assert run.returncode == 2
    error = run.result["error"]
    assert error.startswith("no credentials for model anthropic/claude-sonnet-4-6: set ANTHROPIC_API_KEY or ")
    assert "input" not in error.split(";")[0]
    assert "GitHub passes no secrets to workflows that a fork's pull request triggers" in error
