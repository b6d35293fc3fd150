"""Issue 29, item 2: a replay trusts what a live run trusts, no more.

On a fork's pull request (the example replay workflow's trigger) the replay runs the pull
request's code through the recorded tool calls, confined, but the harness itself imports nothing
from the pull request's checkout: the recorded extension is the base commit's, as in a live run
on that pull request, and the trigger guard has let the event through before anything is loaded
(a stranger's pull request is skipped, its recording never read).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.action.launch import ActionRun, run_action
from tests.action.test_trigger_gate import event_env, fork_pr, pr_checkout
from tests.github.test_fork_guard import BASE_EXT
from tests.github.test_trigger_guard import TOKEN, fake_github
from tests.servers.wire import WireServer

CONFIG = {"engine": {"model": "faux/scripted"}, "harness": {"extensions": ["./.aw/ext.py"]}}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run recorded on the base branch, its extension loaded from ``.aw/ext.py``."""
    tmp = tmp_path_factory.mktemp("recorded")
    ws = tmp / "workspace"
    (ws / ".aw").mkdir(parents=True)
    (ws / ".aw" / "config.json").write_text(json.dumps(CONFIG))
    (ws / ".aw" / "ext.py").write_text(BASE_EXT)
    (tmp / "script.json").write_text(json.dumps({"turns": [{"text": "reviewed"}]}))
    extra = {"MARK": str(tmp / "mark"), "AW_FAUX_SCRIPT": str(tmp / "script.json")}
    inputs = {"config": ".aw/config.json", "prompt": "Review.", "upload-artifacts": "false"}
    run = run_action(tmp, inputs, extra)
    assert run.returncode == 0, run.stdout[-3000:]
    return run.paths.runner_temp / "aw-harness"


def replay_on_fork_pr(tmp: Path, records: Path, sender: str = "octo-writer") -> ActionRun:
    """The replay at a fork's pull request head, whose ``.aw/ext.py`` is the fork's own."""
    _, base = pr_checkout(tmp)
    payload = fork_pr(base)
    payload["sender"]["login"] = sender
    with WireServer(default=fake_github) as api:
        extra = {**event_env(tmp, "pull_request", payload, api.url), "MARK": str(tmp / "mark")}
        inputs = {"mode": "replay", "replay-records": str(records), "upload-artifacts": "false", "github-token": TOKEN}
        return run_action(tmp, inputs, extra)


def test_a_replay_on_a_fork_pr_imports_the_base_extension_never_the_prs(records: Path, tmp_path: Path) -> None:
    run = replay_on_fork_pr(tmp_path, records)
    assert run.returncode == 0, run.stdout[-3000:]
    assert run.outputs["replay"] == "same"
    assert (tmp_path / "mark.base").read_text() == "ran", "the base commit's extension was loaded"
    assert not (tmp_path / "mark.head").exists(), "the pull request's extension was never imported"


def test_a_strangers_fork_pr_is_skipped_before_the_recording_is_read(records: Path, tmp_path: Path) -> None:
    run = replay_on_fork_pr(tmp_path, records, sender="stranger")
    assert run.returncode == 0 and run.outputs["conclusion"] == "skipped", run.stdout[-3000:]
    assert "replay" not in run.outputs or not run.outputs["replay"]
    assert not (tmp_path / "mark.base").exists() and not (tmp_path / "mark.head").exists()
