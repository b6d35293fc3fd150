"""The toolchain examples in the image, run as the runner runs the container action
(docs/toolchain.md): what the agent's shell has there and what it lacks.

- examples/python-project: the dependency an earlier step installed into the workspace is found,
  and ``python3 test_app.py`` imports its neighbour ``app.py``: the image's ``PYTHONSAFEPATH=1``
  (the harness's own setting) is not in the tools' environment (issue 32);
- examples/node-project: the image has no node, so the same job fails in the container: the reason
  docs/toolchain.md sends such projects to the runner-side action.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.action.launch import REPO
from tests.conftest import session_tool_texts
from tests.container import engine
from tests.container.runner import ContainerRun, RunnerHost, container_name, docker_run_argv, read_back, run_container


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def _with(example: str) -> dict[str, str]:
    workflow: Any = YAML(typ="safe").load((REPO / "examples" / example / "workflow.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["tests"]["steps"] if s.get("id") == "aw"]
    return {**step["with"], "upload-artifacts": "false"}


def _docker_step(image: str, host: RunnerHost, inputs: dict[str, str]) -> ContainerRun:
    """The image run as a ``uses: docker://`` step: as the container action, but with an
    ``INPUT_*`` variable only for each ``with:`` value (no action.yml, no defaults)."""
    name = container_name()
    full = docker_run_argv(image, host, inputs, name=name)
    given = {f"INPUT_{key.upper()}=" for key in inputs}
    argv: list[str] = []
    pairs = iter(full)
    for arg in pairs:
        if arg == "-e":
            value = next(pairs)
            if value.startswith("INPUT_") and not value.startswith(tuple(given)):
                continue
            argv += [arg, value]
        else:
            argv.append(arg)
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
    return read_back(host, proc.returncode, proc.stdout + proc.stderr, time.monotonic() - started)


def test_python_project_tests_import_their_neighbour_in_the_image(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path)
    project = host.workspace / "examples" / "python-project"
    wheel = "vendor/tinyfmt-1.0.0-py3-none-any.whl"  # the workflow's install step, on the host
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--target", "_deps", wheel]
    subprocess.run(install, cwd=project, check=True, capture_output=True, timeout=120)
    run = run_container(image, host, _with("python-project"))
    assert run.returncode == 0, run.log[-4000:]
    (result,) = session_tool_texts(host.host_path(run.outputs["session-file"]))
    assert "Ran 3 tests" in result and "\nOK\n" in result and "exit code: 0" in result, result
    assert "ModuleNotFoundError" not in result


def test_node_project_finds_no_node_in_the_image(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path)
    run = run_container(image, host, _with("node-project"))
    (result,) = session_tool_texts(host.host_path(run.outputs["session-file"]))
    assert "node: command not found" in result and "exit code: 127" in result, result


def test_node_project_runs_in_an_image_built_from_the_published_one_as_a_docker_step(tmp_path: Path) -> None:
    """docs/toolchain.md's "Your own image": the published image plus node (its Dockerfile is the
    doc's), used as ``uses: docker://...``: only the ``with:`` values arrive. Building it needs
    Debian's package mirror, so this runs on an image built beforehand, named by
    ``AW_NODE_IMAGE`` (``docker build -t <name> -f - . <<< 'FROM <image under test>' + the doc's RUN``)."""
    node_image = os.environ.get("AW_NODE_IMAGE")
    if not node_image:
        pytest.skip("set AW_NODE_IMAGE to an image built FROM the one under test with node and npm added")
    engine.require_engine()
    host = RunnerHost.under(tmp_path)
    project = host.workspace / "examples" / "node-project"
    npm = ["npm", "ci", "--offline", "--no-audit", "--no-fund", "--silent"]  # the workflow's install step
    subprocess.run(
        npm, cwd=project, check=True, capture_output=True, timeout=300, env={**os.environ, "HOME": str(tmp_path)}
    )
    inputs = _with("node-project")
    run = _docker_step(node_image, host, inputs)
    assert run.returncode == 0, run.log[-4000:]
    (result,) = session_tool_texts(host.host_path(run.outputs["session-file"]))
    assert "# pass 3" in result and "exit code: 0" in result, result
    assert "INPUT_GITHUB-TOKEN is not set at all" in run.log, "the docker:// step's missing default is named"
