"""The action's ``mode: replay``, through the entrypoint as the runner starts it: a run recorded by
the action replays in another job's workspace the same (exit 0, ``replay: same``), or stops at
the changed file (exit 1, an error annotation, the step summary headed with the turn and the
call, the diff on its first screen); a refused replay's summary says why and what to do; a
recorded run that was not uploaded is not offered for download; a missing ``replay-records``
names the input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.action.launch import REPO, ActionRun, run_action, write_script
from tests.github.artifact_server import ArtifactServer, runtime_token

TOKEN = runtime_token("41", "41")

SCRIPT = [
    {
        "text": "Reading.",
        "tool_calls": [{"name": "bash", "arguments": {"command": "cat notes.txt && echo ok > done.txt"}}],
    },
    {"text": "Done."},
]


def workspace(tmp: Path, notes: str = "alpha\n") -> None:
    ws = tmp / "workspace"
    ws.mkdir(parents=True)
    (ws / "notes.txt").write_text(notes)
    write_script(ws, SCRIPT)
    (ws / "config.json").write_text(
        json.dumps({"engine": {"id": "aw", "model": "faux/scripted"}, "harness": {"faux-script": "script.json"}})
    )
    (ws / "prompt.txt").write_text("Read the notes.\n")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> ActionRun:
    tmp = tmp_path_factory.mktemp("action-record")
    workspace(tmp)
    run = run_action(tmp, {"config": "config.json", "prompt-file": "prompt.txt", "upload-artifacts": "false"})
    assert run.returncode == 0, run.stdout[-3000:]
    return run


def first_screen(summary: str) -> str:
    """What a person reads first: the summary down to its first section heading."""
    return summary.split("\n### ", 1)[0]


def replay(tmp: Path, recorded: ActionRun, notes: str = "alpha\n") -> ActionRun:
    workspace(tmp, notes)
    records = recorded.paths.runner_temp / "aw-harness"
    return run_action(tmp, {"mode": "replay", "replay-records": str(records), "upload-artifacts": "false"})


def test_a_recorded_run_not_uploaded_is_not_offered_for_download(recorded: ActionRun) -> None:
    """With ``upload-artifacts: false`` there is no artifact to download: no replay commands
    (tests/action/test_artifact_upload.py has them once the artifact is uploaded)."""
    assert "**Records:** not uploaded (upload-artifacts is false)" in recorded.summary
    assert "gh run download" not in recorded.summary and "Replay this run locally" not in recorded.summary


def test_a_replay_in_an_unchanged_workspace_is_the_same(recorded: ActionRun, tmp_path: Path) -> None:
    run = replay(tmp_path, recorded)
    assert run.returncode == 0, run.stdout[-3000:]
    assert (run.outputs["replay"], run.outputs["conclusion"], run.outputs["exit-code"]) == ("same", "success", "0")
    assert run.outputs["turns"] == "2"
    assert (tmp_path / "workspace" / "done.txt").read_text() == "ok\n"
    assert first_screen(run.summary).startswith("## ✅ Success · Replayed the same\n")
    assert "all 2 turns replayed the same" in first_screen(run.summary)
    assert "**Records:** not uploaded (upload-artifacts is false); the transcript" in first_screen(run.summary)
    assert "of GitHub run `123456` of `octo/hello`" in run.summary
    assert "GitHub access granted" not in run.summary, "a replay's commands see no token"
    assert "no GitHub token, so the tools see none" in run.summary
    assert (tmp_path / "runner_temp" / "aw-harness" / "replay.jsonl").is_file(), "the replay's own records"


def test_a_changed_workspace_fails_the_step_at_the_turn_with_the_diff(recorded: ActionRun, tmp_path: Path) -> None:
    run = replay(tmp_path, recorded, notes="beta\n")
    assert run.returncode == 1, run.stdout[-3000:]
    assert (run.outputs["replay"], run.outputs["conclusion"], run.outputs["exit-code"]) == ("diverged", "failure", "1")
    [error] = [e for e in run.runner.named("error") if "replay" in e.properties.get("title", "")]
    assert "diverged" in error.properties["title"] and "turn 1" in error.data and "bash" in error.data
    screen = first_screen(run.summary)
    assert screen.startswith("## ❌ Failure · Diverged at turn 1, call 1\n"), screen
    assert (
        "> The result of call 1 of turn 1, `cat notes.txt && echo ok > done.txt`, differs from the recording" in screen
    )
    assert "```diff\n--- recorded\n+++ replayed\n" in screen and "\n-alpha\n+beta\n```" in screen
    assert "The run failed" not in run.summary and "> `diverged`." not in run.summary


def test_a_replays_records_are_uploaded_and_its_summary_links_them(recorded: ActionRun, tmp_path: Path) -> None:
    """The replay and its upload share one event loop (the stop scheme's clock is bound to it):
    the upload finishes and the summary's records line links the artifact."""
    workspace(tmp_path)
    records = str(recorded.paths.runner_temp / "aw-harness")
    with ArtifactServer(TOKEN) as server:
        extra = {"ACTIONS_RUNTIME_TOKEN": TOKEN, "ACTIONS_RESULTS_URL": server.url + "/"}
        run = run_action(tmp_path, {"mode": "replay", "replay-records": records, "artifact-name": "replayed"}, extra)
    assert run.returncode == 0, run.stdout[-3000:]
    assert run.outputs["artifact-id"] == "4242" and [c["name"] for c in server.named("CreateArtifact")] == ["replayed"]
    link = "[artifact `replayed`](https://github.com/octo/hello/actions/runs/123456/artifacts/4242)"
    assert f"**Records:** {link}" in first_screen(run.summary)


def test_a_replay_refused_for_its_records_place_says_why_and_what_to_do(recorded: ActionRun, tmp_path: Path) -> None:
    workspace(tmp_path)
    shutil.copytree(recorded.paths.runner_temp / "aw-harness", tmp_path / "workspace" / "reference")
    run = run_action(tmp_path, {"mode": "replay", "replay-records": "reference", "upload-artifacts": "false"})
    assert run.returncode == 2 and run.outputs["replay"] == "unusable"
    screen = first_screen(run.summary)
    assert screen.startswith("## ❌ Failure · Replay refused\n"), run.summary
    assert "`replay-records`: `reference` · exit 2 · no recorded command was replayed" in screen
    assert "lies in the workspace" in screen and "move it out of the workspace" in screen
    assert "> **Fix:** give `replay-records` the recorded run's artifact" in screen
    assert "under `${{ runner.temp }}`" in screen


def test_mode_replay_needs_the_records(tmp_path: Path) -> None:
    workspace(tmp_path)
    run = run_action(tmp_path, {"mode": "replay", "upload-artifacts": "false"})
    assert run.returncode == 2
    [error] = run.runner.named("error")
    assert "replay-records" in error.properties["title"] and "required with mode: replay" in error.data


def test_the_example_records_a_run_and_replays_it(tmp_path: Path) -> None:
    workflow = YAML(typ="safe").load((REPO / "examples" / "replay" / "workflow.yml").read_text())
    [record_step] = [s for s in workflow["jobs"]["record"]["steps"] if s.get("id") == "aw"]
    [replay_step] = [s for s in workflow["jobs"]["replay"]["steps"] if s.get("id") == "aw"]
    for job in ("record", "replay"):
        shutil.copytree(REPO / "examples", tmp_path / job / "workspace" / "examples")
    recorded = run_action(tmp_path / "record", {**record_step["with"], "upload-artifacts": "false"})
    assert recorded.returncode == 0, recorded.stdout[-3000:]
    records = str(recorded.paths.runner_temp / "aw-harness")
    inputs = {**replay_step["with"], "replay-records": records, "upload-artifacts": "false"}
    assert replay_step["with"]["mode"] == "replay"
    run = run_action(tmp_path / "replay", inputs)
    assert run.returncode == 0, run.stdout[-3000:]
    assert run.outputs["replay"] == "same" and run.outputs["turns"] == recorded.outputs["turns"] == "3"
