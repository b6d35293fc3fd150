"""docs/local-act.md works on anyone's machine: no paths of one machine, and the smoke commands
run only the legs that pass under act (the ``cancelled`` job cannot: act never signals a step)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from aw_action.github.fork_guard import fork_pull_request
from aw_action.github.trigger_guard import check_trigger, parse_bots, parse_roles

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "docs" / "local-act.md").read_text(encoding="utf-8")


def test_no_machine_specific_paths() -> None:
    for pattern in (r"(?<!/home/runner)/work/", r"/Users/", r"/root/", r"/home/(?!runner/)", r"C:\\\\", r"/mnt/"):
        assert not re.search(pattern, DOC), pattern


def test_smoke_commands_run_only_the_legs_that_pass_under_act() -> None:
    smoke = YAML(typ="safe").load((REPO / ".github" / "workflows" / "smoke.yml").read_text())
    assert "cancelled" in smoke["jobs"]  # the job the doc tells you not to run
    commands = [line for line in DOC.splitlines() if re.match(r"^act .*smoke\.yml", line)]
    assert len(commands) >= 2
    for command in commands:
        assert " -j smoke" in command and "cancelled" not in command, command
    for leg in re.findall(r"--matrix scenario:([\w-]+)", DOC):
        assert leg in {i["scenario"] for i in smoke["jobs"]["smoke"]["strategy"]["matrix"]["include"]}


def _event_json() -> dict[str, Any]:
    match = re.search(r"where `event\.json` is\n`(\{.*?\})`", DOC, re.S)
    assert match, "docs/local-act.md shows the pull_request event file"
    event: dict[str, Any] = json.loads(match.group(1))
    return event


def test_the_pull_request_event_is_a_same_repository_pr_the_guards_let_through() -> None:
    """The event the doc gives act is the PR of the repository itself: no fork handling (which
    would load the config and prompt from a base commit the event does not name), and the trigger
    guard lets it start."""
    event = _event_json()
    check = fork_pull_request("pull_request", event)
    assert not check.from_fork, check.reason
    assert check.base_repo == check.head_repo == event["repository"]["full_name"]
    decision = check_trigger("pull_request", event, {}, allowed_roles=parse_roles(None), allowed_bots=parse_bots(None))
    assert decision.allowed, decision.reason


def test_an_event_without_the_base_repository_is_said_to_be_one() -> None:
    event = _event_json()
    del event["pull_request"]["base"]["repo"]
    check = fork_pull_request("pull_request", event)
    assert check.from_fork and "names no base repository (pull_request.base.repo.full_name)" in check.reason
