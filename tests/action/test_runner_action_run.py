"""The runner-side action run as the runner runs a composite action, offline: the examples'
workflows (examples/python-project, examples/node-project) step by step on this machine.

A faithful local run of the steps (act cannot fetch actions/cache or actions/upload-artifact
offline): each ``run:`` step of the example's job before the action, then each ``run:`` step of
runner/action.yml, every one as the runner runs a script step (``bash --noprofile --norc -eo
pipefail`` on a file, in the workspace, with a fresh ``GITHUB_OUTPUT`` file; ``GITHUB_PATH`` lines
prepended to ``PATH`` for the steps after; ``${{ }}`` evaluated for the few expressions they use:
the ``inputs`` context with action.yml's defaults, ``toJSON(inputs)``). The ``uses:`` steps are
the runner's own (checkout, setup-*, actions/cache, actions/upload-artifact): the checkout is a
copy of examples/, this machine's python3 and node stand in for setup-*, the cache is the venv
left in place from one job to the next, and the upload's ``path`` is checked to be the records the
harness staged for it.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.action.launch import REPO, _evaluate_default, declared_inputs
from tests.conftest import session_tool_texts
from tests.github.runner_sim import parse_file_command

VERSION = "m.version('aw-harness')"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _yaml(path: Path) -> Any:
    return YAML(typ="safe").load(path.read_text())


@dataclass
class Job:
    """One job's runner folders and the state the runner carries from step to step."""

    work: Path
    path: list[str] = field(default_factory=lambda: ["/usr/local/bin", "/usr/bin", "/bin"])
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def temp(self) -> Path:
        return self.work / "_temp"

    @property
    def workspace(self) -> Path:
        return self.work / "repo" / "repo"

    def env(self, output: Path) -> dict[str, str]:
        return {
            "PATH": ":".join(self.path),
            "HOME": str(self.work / "home"),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_JOB": "tests",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_REPOSITORY": "octo/repo",
            "GITHUB_EVENT_NAME": "workflow_dispatch",
            "GITHUB_EVENT_PATH": str(self.temp / "event.json"),
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_ACTION_PATH": str(REPO / "runner"),
            "GITHUB_OUTPUT": str(output),
            "GITHUB_PATH": str(self.temp / "path"),
            "GITHUB_ENV": str(self.temp / "env"),
            "GITHUB_STEP_SUMMARY": str(self.temp / "summary.md"),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "RUNNER_TEMP": str(self.temp),
            "RUNNER_WORKSPACE": str(self.workspace.parent),
        }

    def run_step(self, script: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str]:
        output = self.temp / f"output_{uuid.uuid4()}"
        output.write_text("")
        (self.temp / "path").write_text("")
        file = self.temp / f"step_{uuid.uuid4()}.sh"
        file.write_text(script)
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(file)],
            cwd=cwd, env={**self.env(output), **(env or {})}, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        self.path[:0] = [line for line in (self.temp / "path").read_text().splitlines() if line][::-1]
        self.last_outputs = parse_file_command(output.read_text())
        return done.returncode, done.stdout + done.stderr


def _inputs(given: dict[str, str]) -> dict[str, str]:
    return {
        name: given.get(name, _evaluate_default((spec or {}).get("default")))
        for name, spec in declared_inputs().items()
    }


def _evaluate(text: str, inputs: dict[str, str], job: Job) -> str:
    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        either = re.fullmatch(r"inputs\.([\w-]+) \|\| format\('\{0\}/([\w-]+)', runner\.temp\)", expr)
        if either:
            return inputs[either.group(1)] or f"{job.temp}/{either.group(2)}"
        if expr == "toJSON(inputs)":
            return json.dumps(inputs, indent=2)
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        if expr == "runner.temp":
            return str(job.temp)
        if expr.startswith("steps."):
            _, step, _, name = expr.split(".", 3)
            return job.outputs.get(step, {}).get(name, "")
        raise AssertionError(f"an expression this simulation does not evaluate: {expr}")

    return EXPRESSION.sub(one, text)


@dataclass
class JobRun:
    outputs: dict[str, str]
    log: str
    timings: dict[str, float]
    upload_path: Path


def run_job(example: str, job: Job) -> JobRun:
    """The example's job: its ``run:`` steps before the action, then the action's steps."""
    shutil.copytree(REPO / "examples", job.workspace / "examples")
    (job.temp / "event.json").write_text("{}")
    (job.work / "home").mkdir(exist_ok=True)
    steps = _yaml(REPO / "examples" / example / "workflow.yml")["jobs"]["tests"]["steps"]
    before = steps[: [s.get("id") for s in steps].index("aw")]
    for step in (s for s in before if "run" in s):
        assert "${{" not in step["run"]
        code, out = job.run_step(step["run"], job.workspace / step.get("working-directory", "."))
        assert code == 0, out
    inputs = _inputs(next(s for s in steps if s.get("id") == "aw")["with"])
    log, timings, upload_path = "", {}, Path()
    for step in _yaml(REPO / "runner" / "action.yml")["runs"]["steps"]:
        if "uses" in step:  # the runner's own actions (the module docstring)
            if step["uses"].startswith("actions/upload-artifact@"):
                upload_path = Path(_evaluate(step["with"]["path"], inputs, job))
            continue
        started = time.monotonic()
        env = {k: _evaluate(str(v), inputs, job) for k, v in (step.get("env") or {}).items()}
        code, out = job.run_step(step["run"], job.workspace, env)
        timings[step["name"]] = time.monotonic() - started
        log += out
        if step.get("id"):
            job.outputs[step["id"]] = job.last_outputs
        assert code == 0 or step.get("id") == "run", out
    return JobRun(job.outputs["run"], log, timings, upload_path)


def _tool_results(session: Path) -> str:
    return "\n".join(session_tool_texts(session))


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One runner's work folder for every job of the module: the venv one job installs, the next finds."""
    work = tmp_path_factory.mktemp("runner") / "work"
    (work / "_temp").mkdir(parents=True)
    return work


EXAMPLES = [
    ("python-project", ("Ran 3 tests", "\nOK\n", "exit code: 0")),
    ("node-project", ("# pass 3", "# fail 0", "exit code: 0")),
]


@pytest.mark.parametrize(("example", "expected"), EXAMPLES, ids=[e for e, _ in EXAMPLES])
def test_the_example_s_job_runs_the_project_s_tests_through_the_runner_side_action(
    work: Path, example: str, expected: tuple[str, ...]
) -> None:
    if example == "node-project" and shutil.which("npm", path="/usr/local/bin:/usr/bin:/bin") is None:
        pytest.skip("node-project needs node and npm on this machine (none found)")
    job = Job(work)
    if job.workspace.exists():
        shutil.rmtree(job.workspace)
    run = run_job(example, job)
    assert run.outputs.get("conclusion") == "success", run.log[-4000:]
    assert run.outputs["exit-code"] == "0"
    session = Path(run.outputs["session-file"])
    assert session.is_file() and session.parent == work / "_temp" / "aw-harness", "the default output folder"
    stage = work / "_temp" / "aw-harness-artifact"
    assert run.upload_path == stage, "the composite uploads what the harness staged, not the output folder"
    assert (stage / session.name).read_text() == session.read_text(), "the staged records hold the transcript"
    assert "ACTIONS_RUNTIME_TOKEN" not in run.log, "the harness was told to stage, not upload: no warning about it"
    results = _tool_results(session)
    for text in expected:
        assert text in results, results[-3000:]
    print(f"\n{example}: " + ", ".join(f"{name}: {seconds:.1f} s" for name, seconds in run.timings.items()))


def test_the_harness_s_venv_is_private_and_keyed_by_what_it_is_made_of(work: Path) -> None:
    """After the jobs above: the venv holds the locked pins and the harness, the project's Python
    none of them, and the key changes when a lock does."""
    venv = work / "_temp" / "aw-harness-venv"
    if not (venv / "bin" / "python").exists():
        pytest.skip("no job of this module installed the venv")
    python = str(venv / "bin" / "python")
    where = subprocess.run(
        [python, "-I", "-c", f"import aw_action, importlib.metadata as m; print(aw_action.__file__, {VERSION})"],
        capture_output=True, text=True, timeout=60,
    ).stdout.split()  # fmt: skip
    assert Path(where[0]).is_relative_to(venv) and where[1] == "0.1.0", "the wheel, installed, not the checkout"
    frozen = subprocess.run([python, "-m", "pip", "freeze"], capture_output=True, text=True, timeout=60).stdout
    locked = {
        line.split("==")[0].lower() for line in (REPO / "requirements.lock").read_text().splitlines() if "==" in line
    }
    installed = {re.sub(r"[._]", "-", line.split("==")[0].lower()) for line in frozen.splitlines() if "==" in line}
    assert locked <= installed, locked - installed
    assert (venv / ".aw-harness-key").read_text().startswith("aw-harness-venv-Linux-")
