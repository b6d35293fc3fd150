"""The action run as a ``uses: docker://<image>`` step (docs/toolchain.md, "Your own image"): the
runner reads no action.yml, so only the ``with:`` values arrive as ``INPUT_*`` and none of the
defaults do (actions/runner ``ActionRunner.cs`` merges defaults from the action's definition only).
The harness applies the literal ones itself and names each whose default is an expression it
cannot evaluate, ``github-token`` first of all."""

from __future__ import annotations

import time
from pathlib import Path

from aw_action.github.action_manifest import ActionInput, action_inputs, defaults_not_applied
from tests.action.launch import Paths, action_env, finish, start_action, write_script


def test_only_inputs_whose_default_is_an_expression_and_whose_variable_is_absent_are_named() -> None:
    declared = action_inputs()
    named = {d.input.name for d in defaults_not_applied({"INPUT_MODEL": "faux/scripted"}, declared)}
    assert named == {"github-token", "artifact-name"}, "the literal defaults the harness applies itself"
    present = {"INPUT_GITHUB-TOKEN": "", "INPUT_ARTIFACT-NAME": ""}  # set but empty: the runner read action.yml
    assert defaults_not_applied(present, declared) == []
    lower = {"input_github-token": "x", "input_artifact-name": "y"}
    assert defaults_not_applied(lower, declared) == []
    message = defaults_not_applied({}, [ActionInput("github-token", "", "${{ github.token }}")])[0].message()
    assert "INPUT_GITHUB-TOKEN" in message and "docker://" in message and "'github-token'" in message


def test_a_docker_step_runs_on_the_harness_s_defaults_and_names_the_token_it_did_not_get(tmp_path: Path) -> None:
    paths = Paths.under(tmp_path)
    write_script(paths.workspace, [{"text": "done"}])
    env = action_env(paths, {"model": "faux/scripted", "prompt": "Say done."}, {"AW_FAUX_SCRIPT": "script.json"})
    given = {"INPUT_MODEL", "INPUT_PROMPT"}  # what `with:` said; the runner sets nothing else
    env = {k: v for k, v in env.items() if not k.startswith("INPUT_") or k in given}
    run = finish(start_action(paths, env), paths, time.monotonic())
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.result["conclusion"] == "success" and run.outputs["conclusion"] == "success"
    warnings = [w.data for w in run.warnings]
    assert any("INPUT_GITHUB-TOKEN is not set at all" in w and "docker://" in w for w in warnings), warnings
    assert not any("is not an input of this action" in w for w in warnings), warnings
