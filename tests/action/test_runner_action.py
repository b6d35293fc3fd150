"""The runner-side action (runner/action.yml, docs/toolchain.md): the same inputs and outputs as the
container action, its steps in the order the contract needs, and the launcher that hands the
inputs to the harness as the runner hands them to a container action."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from aw_action.environment.tuning import ARTIFACT_STAGE
from aw_action.runner_launch import (
    INPUTS_VARIABLE,
    STAGE_FOLDER,
    STAGE_VARIABLE,
    harness_environment,
    input_variable,
)
from tests.action.launch import REPO

RUNNER = REPO / "runner"


def _yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


def test_runner_action_declares_exactly_the_container_action_s_inputs_and_outputs() -> None:
    container, runner = _yaml(REPO / "action.yml"), _yaml(RUNNER / "action.yml")
    assert runner["inputs"] == container["inputs"], "runner/action.yml's inputs are a copy of action.yml's"
    assert list(runner["outputs"]) == list(container["outputs"])
    for name, spec in runner["outputs"].items():
        assert spec["description"] == container["outputs"][name]["description"], name
        assert spec["value"] == f"${{{{ steps.run.outputs.{name} }}}}", name


def test_runner_action_installs_then_execs_the_launcher_with_every_input() -> None:
    steps = _yaml(RUNNER / "action.yml")["runs"]["steps"]
    assert _yaml(RUNNER / "action.yml")["runs"]["using"] == "composite"
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert uses == ["", "actions/cache/restore", "", "actions/cache/save", "", "actions/upload-artifact"]
    key, restore, install, save, run, upload = steps
    assert 'install.sh" key' in key["run"] and 'install.sh" install' in install["run"]
    cached = {"path": "${{ steps.venv.outputs.path }}", "key": "${{ steps.venv.outputs.key }}"}
    assert restore["with"] == save["with"] == cached
    assert restore["id"] == "cache" and "steps.cache.outputs.cache-hit != 'true'" in save["if"]
    # saved before the agent runs, never by a post step after it (an agent with sandbox: full could write it)
    assert not any(s.get("uses", "").startswith("actions/cache@") for s in steps)
    assert run["id"] == "run" and run["env"] == {INPUTS_VARIABLE: "${{ toJSON(inputs) }}"}
    assert run["run"].strip().startswith("exec "), "no shell stays behind holding the step's environment"
    assert run["run"].strip().endswith("-I -m aw_action.runner_launch")
    assert upload["if"].startswith("always() && inputs.upload-artifacts == 'true'")


@pytest.mark.parametrize(
    ("name", "variable"),
    [("max-turns", "INPUT_MAX-TURNS"), ("prompt", "INPUT_PROMPT"), ("a name", "INPUT_A_NAME")],
)
def test_inputs_are_named_as_the_runner_names_a_container_action_s(name: str, variable: str) -> None:
    assert input_variable(name) == variable


def test_launcher_environment_holds_the_inputs_and_nothing_stale() -> None:
    inputs = {"prompt": "Run the tests.", "max-turns": "3", "upload-artifacts": "true", "dry-run": False}
    env = {
        INPUTS_VARIABLE: json.dumps(inputs), "INPUT_STALE": "x", "PATH": "/usr/bin", "RUNNER_TEMP": "/t",
        STAGE_VARIABLE: "/somewhere/the/job/set",
    }  # fmt: skip
    out = harness_environment(env)
    assert out == {
        "PATH": "/usr/bin",
        "RUNNER_TEMP": "/t",
        "INPUT_PROMPT": "Run the tests.",
        "INPUT_MAX-TURNS": "3",
        "INPUT_DRY-RUN": "false",
        "INPUT_UPLOAD-ARTIFACTS": "true",
        STAGE_VARIABLE: "/t/aw-harness-artifact",  # staged for the composite's own upload step
    }
    off = harness_environment({**env, INPUTS_VARIABLE: json.dumps({**inputs, "upload-artifacts": "false"})})
    assert off["INPUT_UPLOAD-ARTIFACTS"] == "false" and STAGE_VARIABLE not in off


def test_the_upload_step_uploads_the_folder_the_harness_stages_and_nothing_hidden() -> None:
    steps = YAML(typ="safe").load((REPO / "runner" / "action.yml").read_text())["runs"]["steps"]
    [upload] = [step for step in steps if step.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["with"]["path"] == "${{ runner.temp }}/" + STAGE_FOLDER
    assert "include-hidden-files" not in upload["with"]
    assert ARTIFACT_STAGE.name == STAGE_VARIABLE


@pytest.mark.parametrize(
    ("raw", "said"),
    [(None, "is not set"), ("{not json", "is not JSON"), ('["prompt"]', "not a JSON object")],
)
def test_a_missing_or_malformed_inputs_object_is_one_line_and_exit_2(raw: str | None, said: str) -> None:
    env = {"PATH": "/usr/bin:/bin"} | ({INPUTS_VARIABLE: raw} if raw is not None else {})
    done = subprocess.run(
        [sys.executable, "-I", "-m", "aw_action.runner_launch"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and INPUTS_VARIABLE in lines[0] and said in lines[0], done.stderr


def test_launcher_replaces_itself_with_an_isolated_harness(tmp_path: Path) -> None:
    """``execve``: the harness keeps the launcher's pid, reads the inputs as INPUT_*, and its
    interpreter is isolated from the job's Python settings (``PYTHONPATH``). The harness is a probe
    here: a venv whose ``aw_action`` is the real launcher plus a ``__main__`` that reports."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    (site,) = venv.glob("lib/python3*/site-packages")
    shim = site / "aw_action"
    shim.mkdir()
    (shim / "__init__.py").write_text("")
    (shim / "runner_launch.py").write_text((REPO / "aw_action" / "runner_launch.py").read_text())
    (shim / "__main__.py").write_text(
        "import importlib.util, json, os, sys\n"
        "print(json.dumps({'pid': os.getpid(), 'argv': sys.argv[1:], 'isolated': sys.flags.isolated,\n"
        "    'planted': importlib.util.find_spec('planted') is not None,\n"
        "    'inputs': {k: v for k, v in os.environ.items() if k.startswith(('INPUT_', 'AW_'))}}))\n"
    )
    planted = tmp_path / "project"
    planted.mkdir()
    (planted / "planted.py").write_text("")
    script = "import subprocess, sys; p = subprocess.Popen(sys.argv[1:]); print(p.pid, flush=True); p.wait()"
    done = subprocess.run(
        [sys.executable, "-c", script, str(venv / "bin" / "python"), "-I", "-m", "aw_action.runner_launch"],
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(planted), INPUTS_VARIABLE: json.dumps({"max-turns": "2"})},
        cwd=planted, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    launched, reported = done.stdout.splitlines()
    report = json.loads(reported)
    assert report["pid"] == int(launched), "the harness is the launcher's process, exec'd"
    assert report["argv"] == ["action"]
    assert report["isolated"] == 1 and not report["planted"], "the job's PYTHONPATH and working dir stay out"
    assert report["inputs"] == {"INPUT_MAX-TURNS": "2", "INPUT_UPLOAD-ARTIFACTS": "false"}


def _launch(inputs_json: str, extra_env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", INPUTS_VARIABLE: inputs_json, **(extra_env or {})}
    return subprocess.run(
        [sys.executable, "-I", "-m", "aw_action.runner_launch"],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"prompt": "a\u0000b"}, "input 'prompt' holds a NUL character"),
        ({"prompt": "\ud800 lone surrogate"}, "cannot start the harness with these inputs"),
    ],
)
def test_an_input_no_environment_can_carry_is_one_line_naming_it_and_exit_2(
    tmp_path: Path, inputs: dict[str, str], said: str
) -> None:
    """A stranger's text can reach an input (``prompt: ${{ github.event.comment.body }}``), and
    JSON can spell what no environment variable holds: a NUL, a lone surrogate. The launcher
    stops with one line naming the input (or saying why the harness could not start), never a
    traceback; and the step's outputs and summary say the run could not start, as the container
    action's do for a refused invocation (they said nothing: found by review)."""
    output, summary = tmp_path / "output", tmp_path / "summary.md"
    done = _launch(json.dumps(inputs), {"GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0], done.stderr
    assert output.read_text().splitlines() == ["exit-code=2", "conclusion=failure", "stop-reason=invocation_error"]
    assert summary.read_text().startswith("## ❌ Failure · The run could not start\n") and said in summary.read_text()


def test_inputs_nested_past_the_parsers_depth_are_one_line_and_exit_2() -> None:
    done = _launch("[" * 50_000 + "]" * 50_000)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and INPUTS_VARIABLE in lines[0], done.stderr


HOSTILE_MODULE = "open({marker!r}, 'w').write('ran')\n"


def test_the_install_runs_no_python_module_the_checked_out_repository_holds(tmp_path: Path) -> None:
    """The install starts in the workspace, where a fork's pull request may have put a ``pip.py``,
    ``venv.py`` or ``sitecustomize.py`` (or a job's ``PYTHONPATH`` may name it): ``python -m pip``
    would have run the repository's file instead of pip's and its venv gone into the cache under
    the real key. The install leaves the workspace first and isolates every interpreter (``-I``).
    Against an action checkout whose lock is empty, so the install stops at pip's first call."""
    source = tmp_path / "action"
    for name in ("requirements.lock", "requirements-build.lock", "pyproject.toml", "action.yml"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("")
    (source / "runner").mkdir()
    for name in ("action.yml", "install.sh"):
        (source / "runner" / name).write_text((REPO / "runner" / name).read_text())
    (source / "aw_action").mkdir()
    (source / "aw_action" / "__init__.py").write_text("")
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    markers = {name: tmp_path / f"ran-{name}" for name in ("pip", "venv", "sitecustomize")}
    for name, marker in markers.items():
        (workspace / f"{name}.py").write_text(HOSTILE_MODULE.format(marker=str(marker)))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(workspace)}
    script = str(source / "runner" / "install.sh")
    for mode in ("key", "install"):
        env["GITHUB_OUTPUT"] = str(tmp_path / f"{mode}.out")
        subprocess.run(
            ["bash", script, mode, str(source), "venv"], cwd=workspace, env=env, capture_output=True, timeout=300
        )
    assert sorted(name for name, marker in markers.items() if marker.exists()) == []
    assert "key=aw-harness-venv-" in (tmp_path / "key.out").read_text()
    assert (tmp_path / "workspace" / "venv" / "bin" / "python").exists(), "a relative VENV is the workspace's"
