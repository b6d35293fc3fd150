"""Run the image the way the GitHub runner runs a container action (actions/runner 2.328+,
``ContainerActionHandler``; /work/shared/notes/actions-runtime.md §2-§3).

Host layout, as on a runner (``<work>`` is the runner's work folder)::

    <work>/_temp                          runner.temp         -> /github/runner_temp
    <work>/_temp/_github_home             HOME                -> /github/home
    <work>/_temp/_github_workflow         event.json          -> /github/workflow
    <work>/_temp/_runner_file_commands    GITHUB_OUTPUT, ...  -> /github/file_commands
    <work>/hello/hello                    the workspace       -> /github/workspace
    <work>/hello                          RUNNER_WORKSPACE (kept as a host path)

``docker run`` gets ``--workdir /github/workspace``, ``-e`` for every variable (path variables
translated to container paths), one ``INPUT_<NAME>`` per input declared in action.yml (hyphens
kept; the default when not given), no ``--init``, no ``-t``, no ``--user``. ``runner_temp_mount``
False gives an older runner, which neither mounts the temp folder nor translates
``RUNNER_TEMP``. Stdout and stderr are the step log; the file commands are read back after
the container has ended, as the runner does.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from tests.action.launch import REPO, _evaluate_default, declared_inputs
from tests.container.engine import has_bridge
from tests.github.runner_sim import parse_file_command


@dataclass
class RunnerHost:
    """The runner's folders for one job, on the host."""

    work: Path
    output_name: str = field(default_factory=lambda: f"set_output_{uuid.uuid4()}")
    summary_name: str = field(default_factory=lambda: f"step_summary_{uuid.uuid4()}")

    @property
    def temp(self) -> Path:
        return self.work / "_temp"

    @property
    def runner_workspace(self) -> Path:
        return self.work / "hello"

    @property
    def workspace(self) -> Path:
        return self.runner_workspace / "hello"

    @property
    def file_commands(self) -> Path:
        return self.temp / "_runner_file_commands"

    @classmethod
    def under(cls, tmp: Path, examples: bool = True) -> RunnerHost:
        host = cls(tmp / "work")
        for sub in ("_github_home", "_github_workflow", "_runner_file_commands"):
            (host.temp / sub).mkdir(parents=True, exist_ok=True)
        host.workspace.mkdir(parents=True)
        (host.temp / "_github_workflow" / "event.json").write_text("{}")
        (host.file_commands / host.output_name).write_text("")
        (host.file_commands / host.summary_name).write_text("")
        if examples:  # what actions/checkout would have put there
            shutil.copytree(REPO / "examples", host.workspace / "examples")
        return host

    def host_path(self, value: str) -> Path:
        """A path from an output, as a later step (started in the workspace) resolves it."""
        path = Path(value)
        return path if path.is_absolute() else self.workspace / path


def inputs_env(inputs: dict[str, str]) -> dict[str, str]:
    declared = declared_inputs()
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs not declared in action.yml: {unknown}"
    return {
        "INPUT_" + name.replace(" ", "_").upper(): inputs.get(name, _evaluate_default((spec or {}).get("default")))
        for name, spec in declared.items()
    }


def docker_run_argv(
    image: str,
    host: RunnerHost,
    inputs: dict[str, str],
    env: dict[str, str] | None = None,
    *,
    name: str,
    runner_temp_mount: bool = True,
    network: str = "none",
) -> list[str]:
    variables = {
        "HOME": "/github/home",
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_JOB": "smoke",
        "GITHUB_RUN_ID": "4242",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_REPOSITORY": "octo/hello",
        "GITHUB_EVENT_NAME": "workflow_dispatch",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        "GITHUB_OUTPUT": f"/github/file_commands/{host.output_name}",
        "GITHUB_STEP_SUMMARY": f"/github/file_commands/{host.summary_name}",
        "RUNNER_OS": "Linux",
        "RUNNER_ARCH": "X64",
        "RUNNER_TEMP": "/github/runner_temp" if runner_temp_mount else str(host.temp),
        "RUNNER_WORKSPACE": str(host.runner_workspace),
        **inputs_env(inputs),
        **(env or {}),
    }
    mounts = {
        host.temp / "_github_home": "/github/home",
        host.temp / "_github_workflow": "/github/workflow",
        host.file_commands: "/github/file_commands",
        host.workspace: "/github/workspace",
    }
    if runner_temp_mount:
        mounts[host.temp] = "/github/runner_temp"
    if network == "bridge" and not has_bridge():
        network = "host"
    argv = ["docker", "run", "--name", name, "--workdir", "/github/workspace", "--network", network]
    for key, value in variables.items():
        argv += ["-e", f"{key}={value}"]
    for source, target in mounts.items():
        argv += ["-v", f"{source}:{target}"]
    return [*argv, image]


def container_name() -> str:
    return f"aw-test-{secrets.token_hex(6)}"


@dataclass
class ContainerRun:
    returncode: int
    log: str
    """stdout then stderr: the step log."""
    outputs: dict[str, str]
    summary: str
    host: RunnerHost
    elapsed_s: float


def read_back(host: RunnerHost, returncode: int, log: str, elapsed_s: float) -> ContainerRun:
    outputs = parse_file_command((host.file_commands / host.output_name).read_text(encoding="utf-8"))
    summary = (host.file_commands / host.summary_name).read_text(encoding="utf-8")
    return ContainerRun(returncode, log, outputs, summary, host, elapsed_s)


def run_container(
    image: str,
    host: RunnerHost,
    inputs: dict[str, str],
    env: dict[str, str] | None = None,
    *,
    runner_temp_mount: bool = True,
    timeout: float = 180,
) -> ContainerRun:
    name = container_name()
    argv = docker_run_argv(image, host, inputs, env, name=name, runner_temp_mount=runner_temp_mount)
    started = time.monotonic()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    finally:
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
    return read_back(host, proc.returncode, proc.stdout + proc.stderr, time.monotonic() - started)
