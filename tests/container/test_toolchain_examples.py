"""The toolchain examples in the image, run as the runner runs the container action
(docs/toolchain.md): what the agent's shell has there and what it lacks.

- examples/python-project: the dependency an earlier step installed into the workspace is found,
  and ``python3 test_app.py`` imports its neighbour ``app.py``: the image's ``PYTHONSAFEPATH=1``
  (the harness's own setting) is not in the tools' environment (issue 32);
- examples/node-project: the image has no node, so the same job fails in the container: the reason
  docs/toolchain.md sends such projects to the runner-side action.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.action.launch import REPO
from tests.container import engine
from tests.container.runner import RunnerHost, run_container


@pytest.fixture(scope="module")
def image() -> str:
    return engine.image()


def _with(example: str) -> dict[str, str]:
    workflow: Any = YAML(typ="safe").load((REPO / "examples" / example / "workflow.yml").read_text())
    (step,) = [s for s in workflow["jobs"]["tests"]["steps"] if s.get("id") == "aw"]
    return {**step["with"], "upload-artifacts": "false"}


def _tool_results(session: Path) -> list[str]:
    out = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "message" and entry["message"]["role"] == "toolResult":
            out.append("".join(part.get("text", "") for part in entry["message"]["content"]))
    return out


def test_python_project_tests_import_their_neighbour_in_the_image(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path)
    project = host.workspace / "examples" / "python-project"
    wheel = "vendor/tinyfmt-1.0.0-py3-none-any.whl"  # the workflow's install step, on the host
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--target", "_deps", wheel]
    subprocess.run(install, cwd=project, check=True, capture_output=True, timeout=120)
    run = run_container(image, host, _with("python-project"))
    assert run.returncode == 0, run.log[-4000:]
    (result,) = _tool_results(host.host_path(run.outputs["session-file"]))
    assert "Ran 3 tests" in result and "\nOK\n" in result and "exit code: 0" in result, result
    assert "ModuleNotFoundError" not in result


def test_node_project_finds_no_node_in_the_image(image: str, tmp_path: Path) -> None:
    host = RunnerHost.under(tmp_path)
    run = run_container(image, host, _with("node-project"))
    (result,) = _tool_results(host.host_path(run.outputs["session-file"]))
    assert "node: command not found" in result and "exit code: 127" in result, result
