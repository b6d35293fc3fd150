"""The runner's facts as one record: each variable read once, the defaults applied in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.environment.runner import RUNTIME_VARS, RunnerFacts

RUNNER = {
    "GITHUB_ACTIONS": "true",
    "GITHUB_WORKSPACE": "/home/runner/work/r/r",
    "GITHUB_REPOSITORY": "o/r",
    "GITHUB_RUN_ID": "42",
    "GITHUB_RUN_ATTEMPT": "2",
    "GITHUB_WORKFLOW": "Review",
    "GITHUB_EVENT_NAME": "pull_request",
    "GITHUB_EVENT_PATH": "/e.json",
    "GITHUB_SERVER_URL": "https://ghe.example/",
    "GITHUB_API_URL": "https://ghe.example/api/v3/",
    "GITHUB_STEP_SUMMARY": "/s.md",
    "GITHUB_OUTPUT": "/o.txt",
    "RUNNER_TEMP": "/t",
    "ACTIONS_RUNTIME_TOKEN": "secret-runtime-token",
}


def test_the_record_holds_the_runners_facts() -> None:
    facts = RunnerFacts.read(RUNNER)
    assert facts.actions and not facts.gh_aw
    assert (facts.workspace, facts.repository, facts.run_id, facts.run_attempt) == (
        "/home/runner/work/r/r",
        "o/r",
        "42",
        "2",
    )
    assert (facts.workflow, facts.event_name, facts.event_path, facts.runner_temp) == (
        "Review",
        "pull_request",
        "/e.json",
        "/t",
    )
    assert (facts.server, facts.api) == ("https://ghe.example", "https://ghe.example/api/v3")
    assert (facts.step_summary, facts.output_file) == ("/s.md", "/o.txt")
    assert facts.run_url == "https://ghe.example/o/r/actions/runs/42"
    assert "secret-runtime-token" not in repr(facts)


def test_off_a_runner_each_default_is_applied_once() -> None:
    facts = RunnerFacts.read({})
    assert (facts.server, facts.api) == ("https://github.com", "https://api.github.com")
    assert facts.output_dir == Path("/tmp/gh-aw")
    assert facts.workspace_or("/here") == Path("/here")
    assert (facts.step_summary, facts.run_url, facts.actions) == ("", None, False)
    assert RunnerFacts.read({"AW_OUTPUT_DIR": "/out"}).output_dir == Path("/out")


def test_the_record_is_frozen() -> None:
    facts = RunnerFacts.read(RUNNER)
    with pytest.raises(AttributeError):
        facts.run_id = "1"  # type: ignore[misc]


def test_without_runtime_is_the_record_of_the_environment_without_the_runtime_s_variables() -> None:
    """What an entry point hands a command it runs (``mode: apply``, ``mode: replay``): the same
    record that command's environment, the runtime's variables left out, would read to."""
    env = {name: f"https://{name.lower()}.example/" for name in RUNTIME_VARS}
    env.update({"GITHUB_REPOSITORY": "octo/hello", "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "7"})
    handed = {k: v for k, v in env.items() if k not in RUNTIME_VARS}
    assert RunnerFacts.read(env).without_runtime() == RunnerFacts.read(handed)
    assert RunnerFacts.read(env) != RunnerFacts.read(handed)
