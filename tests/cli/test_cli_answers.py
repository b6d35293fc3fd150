"""The command line answers as people expect, through the installed ``aw-harness`` entry point:
``--help`` for every subcommand (the action's lists action.yml's inputs), a mistyped subcommand
named with the nearest one, a YAML config named as YAML with the command that converts it, a
misspelt ``INPUT_*`` warned with the input it most likely meant, and no warning about the image's
isolation on a local run."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from aw_action import cli
from aw_action.security.confinement.identity import decide_tool_identity, reachable
from tests.conftest import REPO, base_env

AW_HARNESS = Path(sys.executable).parent / "aw-harness"
ACTION = YAML(typ="safe").load((REPO / "action.yml").read_text())


def _run(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(AW_HARNESS), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("name", list(cli.SUBCOMMANDS))
def test_every_subcommand_answers_help(name: str) -> None:
    run = _run(name, "--help")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr == ""
    assert run.stdout.startswith("usage: aw-harness ") and f"aw-harness {name}" in run.stdout.splitlines()[0]


def test_action_help_lists_every_input_of_action_yml_with_its_variable_and_default() -> None:
    run = _run("action", "-h")
    assert run.returncode == 0 and run.stderr == ""
    assert "::" not in run.stdout, "help is no step log: no workflow command, no result object"
    for name, spec in ACTION["inputs"].items():
        variable = "INPUT_" + name.upper()
        default = f" (default: {spec['default']})" if spec.get("default") else ""
        assert re.search(rf"^  {re.escape(name)}  \[{re.escape(variable)}\]{re.escape(default)}$", run.stdout, re.M), (
            name
        )
        first_words = " ".join(str(spec["description"]).split()[:4])
        assert first_words in " ".join(run.stdout.split()), name


def test_action_with_other_arguments_is_still_an_invocation_error() -> None:
    run = _run("action", "--halp")
    assert run.returncode == 2
    assert "the action takes no arguments" in run.stdout


def test_a_mistyped_subcommand_is_named_with_the_nearest_one(tmp_path: Path) -> None:
    run = _run("audti", "x", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.splitlines() == [
        "aw-harness: error: unknown subcommand 'audti' (did you mean 'audit'?) "
        "(usage: aw-harness --config CONFIG --prompt PROMPT)"
    ]
    result = json.loads(run.stdout)
    assert result["stop_reason"] == "invocation_error" and "did you mean 'audit'?" in result["error"]
    assert list(tmp_path.iterdir()) == [], "nothing ran"


def test_a_word_like_no_subcommand_lists_them_all() -> None:
    run = _run("frobnicate")
    assert run.returncode == 2
    assert f"unknown subcommand 'frobnicate' (the subcommands are {', '.join(cli.SUBCOMMANDS)})" in run.stderr


YAML_CONFIG = """\
engine:
  id: aw
  model: faux/scripted
harness:
  faux-script: script.json
"""


def test_a_yaml_config_is_named_as_yaml_and_the_command_it_gives_converts_it(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "config.json").write_text(YAML_CONFIG)
    (workspace / "script.json").write_text(json.dumps([{"text": "converted and done"}]))
    (workspace / "prompt.txt").write_text("Say it.\n")
    run = _run("--config", "config.json", "--prompt", "prompt.txt", env=env, cwd=workspace)
    assert run.returncode == 2
    error = json.loads(run.stdout)["error"]
    assert error.startswith("config file config.json is YAML, and it must be JSON")
    assert "line 1 column 1" not in error
    assert "yq -o=json config.json > config.converted.json" in error
    command = error.split(", or ", 1)[1]
    assert command.endswith(" config.json > config.converted.json")
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True, env=env, timeout=60)
    again = _run("--config", "config.converted.json", "--prompt", "prompt.txt", env=env, cwd=workspace)
    assert again.returncode == 0, again.stdout + again.stderr[-2000:]
    assert json.loads(again.stdout)["final_message"] == "converted and done"


def test_a_config_named_yml_converts_to_the_json_beside_it(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "agent.yml").write_text("engine: [\n")  # not even valid YAML: the name says it
    (workspace / "prompt.txt").write_text("x\n")
    run = _run("--config", "agent.yml", "--prompt", "prompt.txt", env=env, cwd=workspace)
    assert run.returncode == 2
    assert "is YAML, and it must be JSON" in run.stderr and "> agent.json" in run.stderr


def test_a_broken_json_config_keeps_json_s_own_message(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "config.json").write_text('{"engine": {"model": "faux/scripted"},}')
    (workspace / "prompt.txt").write_text("x\n")
    run = _run("--config", "config.json", "--prompt", "prompt.txt", env=env, cwd=workspace)
    assert run.returncode == 2
    assert (
        "config file is not valid JSON: config.json: line 1 column 39: Expecting property name"
        in json.loads(run.stdout)["error"]
    )


def _action_env(tmp_path: Path, **inputs: str) -> dict[str, str]:
    env = base_env(tmp_path, AW_FAUX_SCRIPT=str(tmp_path / "script.json"))
    (tmp_path / "script.json").write_text(json.dumps([{"text": "done"}]))
    env.update({"INPUT_MODEL": "faux/scripted", "INPUT_PROMPT": "Do it.", "INPUT_UPLOAD-ARTIFACTS": "false", **inputs})
    env["GITHUB_OUTPUT"] = str(tmp_path / "outputs.txt")
    return env


def test_a_misspelt_input_is_a_step_log_warning_naming_the_likely_input(tmp_path: Path) -> None:
    secret_looking = "ghp_NotARealTokenButNeverPrinted0123456789"
    env = _action_env(tmp_path, **{"INPUT_MAX-TURN": "3", "INPUT_GITHUB_TOKEN": secret_looking, "INPUT_ZZZ": "1"})
    run = _run("action", env=env, cwd=Path(env["GITHUB_WORKSPACE"]))
    assert run.returncode == 0, run.stdout[-3000:]
    warnings = [
        line for line in run.stdout.splitlines() if line.startswith("::warning title=aw-harness%3A unknown input::")
    ]
    texts = [line.split("::", 2)[2] for line in warnings]
    assert texts == [
        "INPUT_GITHUB_TOKEN is not an input of this action (action.yml), so it is ignored; "
        "did you mean 'github-token' (INPUT_GITHUB-TOKEN)?",
        "INPUT_MAX-TURN is not an input of this action (action.yml), so it is ignored; "
        "did you mean 'max-turns' (INPUT_MAX-TURNS)?",
        "INPUT_ZZZ is not an input of this action (action.yml), so it is ignored; "
        "aw-harness action --help lists the inputs",
    ]
    assert secret_looking not in run.stdout + run.stderr
    assert "conclusion<<" in (outputs := (tmp_path / "outputs.txt").read_text()) and "\nsuccess\n" in outputs


def test_declared_inputs_draw_no_warning(tmp_path: Path) -> None:
    env = _action_env(tmp_path, **{"INPUT_MAX-TURNS": "3", "INPUT_OUTPUT-DIR": "", "INPUT_GITHUB-TOKEN": ""})
    run = _run("action", env=env, cwd=Path(env["GITHUB_WORKSPACE"]))
    assert run.returncode == 0 and "unknown input" not in run.stdout


ISOLATION = "tools are not isolated from the harness"


def test_a_local_run_has_no_warning_about_the_image_but_a_run_on_a_runner_does(tmp_path: Path) -> None:
    """The warning is about the container's promise: a local run (as root or not) does not get it;
    the same run in a job (``GITHUB_ACTIONS=true``), with tools not isolated, does."""
    env = base_env(tmp_path)
    workspace = Path(env["GITHUB_WORKSPACE"])
    (workspace / "config.json").write_text(
        json.dumps({"engine": {"model": "faux/scripted"}, "harness": {"faux-script": "script.json"}})
    )
    (workspace / "script.json").write_text(json.dumps([{"text": "done"}]))
    (workspace / "prompt.txt").write_text("x\n")
    local = _run("--config", "config.json", "--prompt", "prompt.txt", "--format", "jsonl", env=env, cwd=workspace)
    assert local.returncode == 0 and ISOLATION not in local.stderr and "aw-agent" not in local.stderr
    on_runner = _run(
        "--config", "config.json", "--prompt", "prompt.txt", "--format", "jsonl",
        env={**env, "GITHUB_ACTIONS": "true"}, cwd=workspace,
    )  # fmt: skip
    assert on_runner.returncode == 0
    protected = reachable(decide_tool_identity(workspace), workspace).protected
    assert (ISOLATION in on_runner.stderr) is not protected
