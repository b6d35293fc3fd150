"""The entrypoint as the runner starts it: INPUT_* with hyphens, file commands, a workspace."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aw_action.github.outputs import APPLY_OUTPUT_NAMES, OUTPUT_NAMES, REPLAY_OUTPUT_NAMES
from tests.action.launch import FAKE_GITHUB_TOKEN, ActionRun, Paths, action_env, run_action, write_script
from tests.github.runner_sim import parse_file_command, simulate

ANTHROPIC_KEY = "sk-ant-api03-NeverShowThis-1234567890"
OTLP_TOKEN = "otlp-bearer-NeverShowThis-987"
INJECTED_FINAL = (
    "All done.\n::warning::pwned via final message\n##[set-output name=conclusion]hacked\n"
    "::add-mask::All\nconclusion=hacked"
)

EXTENSION = """
def setup(api):
    print("::error::printed by an extension at setup")

    def echo_model(event, ctx):
        last = [m for m in ctx.messages if m.role == "assistant"][-1]
        print(last.text)

    api.on("turn_end", echo_model)
"""


def _workspace_files(ws: Path, turns: list[dict[str, Any]], **harness: Any) -> None:
    script = write_script(ws, turns)
    config = {
        "engine": {"id": "aw", "model": "faux/scripted"},
        "timeout-minutes": 5,
        "harness": {"faux-script": script.name, **harness},
    }
    (ws / "config.json").write_text(json.dumps(config))
    (ws / "prompt.txt").write_text("Do the task.")


def _scripted_run(tmp_path: Path, turns: list[dict[str, Any]], inputs: dict[str, str] | None = None) -> ActionRun:
    ws = tmp_path / "workspace"
    ws.mkdir()
    _workspace_files(ws, turns)
    (ws / "echo_ext.py").write_text(EXTENSION)
    base = {
        "config": "config.json",
        "prompt-file": "prompt.txt",
        "anthropic-api-key": ANTHROPIC_KEY,
        "otlp-headers": f"Authorization=Bearer%20{OTLP_TOKEN}",
        "extensions": "./echo_ext.py",
        "upload-artifacts": "false",
    }
    return run_action(tmp_path, {**base, **(inputs or {})})


TURNS: list[dict[str, Any]] = [
    {"text": "::warning::pwned via turn text", "tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
    {"text": INJECTED_FINAL},
]


@pytest.fixture(scope="module")
def success_run(tmp_path_factory: pytest.TempPathFactory) -> ActionRun:
    """One successful scripted run, inspected by several tests."""
    return _scripted_run(tmp_path_factory.mktemp("success"), TURNS)


def test_success_writes_every_output_and_exit_0(success_run: ActionRun) -> None:
    run = success_run
    assert run.returncode == 0, run.stdout + run.stderr
    assert set(run.outputs) == set(OUTPUT_NAMES) - set(APPLY_OUTPUT_NAMES) - set(REPLAY_OUTPUT_NAMES)
    assert run.outputs["structured-output"] == "", "no output-schema"
    assert run.outputs["conclusion"] == "success"
    assert run.outputs["stop-reason"] == "completed"
    assert run.outputs["exit-code"] == "0"
    assert run.outputs["turns"] == "2"
    assert int(run.outputs["input-tokens"]) > 0 and int(run.outputs["output-tokens"]) > 0
    assert float(run.outputs["effective-tokens"]) > 0
    assert run.outputs["final-message"] == INJECTED_FINAL
    assert run.outputs["session-file"].endswith("aw-harness/session.jsonl")
    assert Path(run.outputs["session-file"]).is_file()
    assert run.outputs["artifact-id"] == ""
    assert run.result["exit_code"] == 0


def test_every_secret_is_masked_before_anything_else_is_printed(success_run: ActionRun) -> None:
    run = success_run
    lines = run.stdout.splitlines()
    leading = list(itertools.takewhile(lambda line: line.startswith("::add-mask::"), lines))
    first_masks = {c.data for c in simulate("\n".join(leading)).named("add-mask")}
    assert {ANTHROPIC_KEY, FAKE_GITHUB_TOKEN, OTLP_TOKEN} <= first_masks, "masks must come first"
    masked = {c.data for c in run.runner.named("add-mask")}
    assert masked == first_masks, "a mask the model asked for must not be applied"
    rest = "\n".join(lines[len(leading) :]) + run.stderr
    for secret in (ANTHROPIC_KEY, FAKE_GITHUB_TOKEN, OTLP_TOKEN):
        assert secret not in rest
        assert secret not in json.dumps(run.outputs)


def test_model_text_can_never_issue_a_workflow_command(success_run: ActionRun) -> None:
    run = success_run
    runner = run.runner
    assert "::warning::pwned via turn text" in runner.lines_while_stopped, "the extension echo must be in the log"
    for command in runner.processed:
        assert "pwned" not in command.data and "hacked" not in command.data
        assert command.name != "set-output"
        assert not (command.name == "error" and "extension" in command.data)
    assert runner.stop_token is None
    assert run.stderr == "", "everything travels on the one guarded stream"


def test_each_turn_is_a_group(success_run: ActionRun) -> None:
    run = success_run
    groups = [(c.name, c.data) for c in run.runner.processed if c.name in ("group", "endgroup")]
    assert all(kind == "group" for kind, _ in groups[0::2]), "groups never nest"
    assert groups[1::2] == [("endgroup", "")] * (len(groups) // 2) and len(groups) % 2 == 0
    opened = [name for kind, name in groups if kind == "group"]
    assert [name for name in opened if name != "Records (JSONL)"] == ["Turn 1", "Turn 2"]
    assert "Records (JSONL)" in opened, "records outside a turn are folded away too"


def test_inline_prompt_and_inputs_without_a_config(tmp_path: Path) -> None:
    ws = tmp_path / "workspace"
    ws.mkdir()
    script = write_script(ws, [{"text": "Report written."}])
    run = run_action(
        tmp_path,
        {"prompt": "Write the report.", "model": "faux/scripted", "max-turns": "3", "upload-artifacts": "false"},
        {"AW_FAUX_SCRIPT": str(script)},
    )
    assert run.returncode == 0, run.stdout
    assert run.outputs["final-message"] == "Report written."
    transcript = (tmp_path / "runner_temp" / "aw-harness" / "session.jsonl").read_text()
    assert "Write the report." in transcript


def test_budget_exceeded_is_a_warning_an_error_and_exit_1(tmp_path: Path) -> None:
    turns = [{"text": "working", "tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]}] * 30
    run = _scripted_run(tmp_path, turns, {"max-effective-tokens": "6000"})
    assert run.returncode == 1
    assert run.outputs["conclusion"] == "failure"
    assert run.outputs["stop-reason"] == "budget_exceeded"
    # the agent said "working" on every turn it had: a step, not an answer, so no final message
    assert int(run.outputs["turns"]) >= 1 and run.outputs["final-message"] == ""
    assert run.result["final_message"] == "" and run.result["stop_reason"] == "budget_exceeded"
    errors = run.runner.named("error")
    assert len(errors) == 1, "one annotation explains the stop"
    assert errors[0].properties["title"] == "aw-harness: Stopped by the effective-token limit"
    assert " of 6,000 effective tokens used (" in errors[0].data
    assert errors[0].data.endswith("Fix: Raise the max-effective-tokens input (now 6,000) or narrow the task.")


def test_invalid_input_is_an_error_naming_it_and_exit_2(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"prompt": "x", "model": "faux/scripted", "max-turns": "many"})
    assert run.returncode == 2
    errors = run.runner.named("error")
    assert len(errors) == 1
    assert errors[0].properties["title"] == "aw-harness: Invalid input 'max-turns'"
    assert run.outputs["exit-code"] == "2"
    assert run.outputs["stop-reason"] == "invocation_error"
    masked = {c.data for c in run.runner.named("add-mask")}
    assert FAKE_GITHUB_TOKEN in masked, "secrets are masked even when inputs are invalid"


def test_unknown_model_is_an_invocation_error(tmp_path: Path) -> None:
    run = run_action(tmp_path, {"prompt": "x", "model": "no-such-model-xyz", "upload-artifacts": "false"})
    assert run.returncode == 2
    assert run.outputs["exit-code"] == "2"
    assert len(run.runner.named("error")) == 1


def test_arguments_are_an_invalid_input_reported_after_the_masks(tmp_path: Path) -> None:
    """A workflow's ``with: args:`` becomes container arguments; the action refuses them like a bad input."""
    paths = Paths.under(tmp_path)
    env = action_env(paths, {"prompt": "x", "model": "faux/scripted"})
    proc = subprocess.run(
        [sys.executable, "-m", "aw_action", "action", "--verbose"],
        env=env,
        cwd=paths.workspace,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout.startswith(f"::add-mask::{FAKE_GITHUB_TOKEN}\n")
    errors = simulate(proc.stdout).named("error")
    assert [e.properties["title"] for e in errors] == ["aw-harness: Invalid input 'args'"]
    outputs = parse_file_command(paths.output_file.read_text())
    assert (outputs["exit-code"], outputs["stop-reason"]) == ("2", "invocation_error")
