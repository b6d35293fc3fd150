"""Start the action's entrypoint the way the runner starts the container, without Docker.

The runner builds ``docker run`` with ``-e`` for: every input declared in action.yml as
``INPUT_<NAME>`` (hyphens kept; the declared default, or ``""``), the ``GITHUB_*`` and
``RUNNER_*`` context variables with container paths, ``HOME=/github/home``, ``CI``,
``GITHUB_ACTIONS`` and, when given, ``ACTIONS_RUNTIME_TOKEN``/``ACTIONS_RESULTS_URL``. Its host
environment is not passed. The working directory is the workspace; the process is the image's
ENTRYPOINT, ``python -m aw_action action`` (tini only forwards signals to it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from tests.github.runner_sim import Command, RunnerLog, parse_file_command, simulate

REPO = Path(__file__).resolve().parents[2]
FAKE_GITHUB_TOKEN = "ghs_FakeJobToken0123456789abcdef"
EXPRESSIONS = {
    "${{ github.token }}": FAKE_GITHUB_TOKEN,
    "${{ github.job }}": "smoke",
    "${{ strategy.job-index }}": "0",
    "${{ github.run_attempt }}": "1",
}


def declared_inputs() -> dict[str, Any]:
    data = YAML(typ="safe").load((REPO / "action.yml").read_text())
    inputs: dict[str, Any] = data["inputs"]
    return inputs


def _evaluate_default(value: Any) -> str:
    text = "" if value is None else str(value)
    for expression, result in EXPRESSIONS.items():
        text = text.replace(expression, result)
    assert "${{" not in text, f"unhandled expression in a default: {text}"
    return text


@dataclass
class Paths:
    workspace: Path
    home: Path
    runner_temp: Path
    output_file: Path
    summary_file: Path

    @classmethod
    def under(cls, tmp: Path) -> Paths:
        paths = cls(
            tmp / "workspace",
            tmp / "home",
            tmp / "runner_temp",
            tmp / "fc" / "set_output_1",
            tmp / "fc" / "step_summary_1",
        )
        for folder in (paths.workspace, paths.home, paths.runner_temp, paths.output_file.parent):
            folder.mkdir(parents=True, exist_ok=True)
        paths.output_file.write_text("")
        paths.summary_file.write_text("")
        return paths


def action_env(paths: Paths, inputs: dict[str, str], extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(paths.home),
        "CI": "true",
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(paths.workspace),
        "GITHUB_OUTPUT": str(paths.output_file),
        "GITHUB_STEP_SUMMARY": str(paths.summary_file),
        "GITHUB_REPOSITORY": "octo/hello",
        "GITHUB_RUN_ID": "123456",
        "GITHUB_JOB": "smoke",
        "GITHUB_SERVER_URL": "https://github.com",
        "RUNNER_TEMP": str(paths.runner_temp),
        "RUNNER_OS": "Linux",
        "PYTHONUNBUFFERED": "1",
    }
    for name, spec in declared_inputs().items():
        value = inputs.get(name, _evaluate_default((spec or {}).get("default")))
        env["INPUT_" + name.replace(" ", "_").upper()] = value
    unknown = set(inputs) - set(declared_inputs())
    assert not unknown, f"inputs not declared in action.yml: {unknown}"
    env.update(extra or {})
    return env


@dataclass
class ActionRun:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    paths: Paths
    elapsed_s: float

    @property
    def runner(self) -> RunnerLog:
        return simulate(self.stdout + "\n" + self.stderr)

    @property
    def warnings(self) -> list[Command]:
        """The ``::warning::`` commands, without the one saying tools are not isolated from the
        harness (every run as root with a root-owned workspace and no ``aw-agent`` user: the
        test machine's case; tests/security covers it)."""
        return [w for w in self.runner.named("warning") if "check=tool-isolation" not in w.data]

    @property
    def result(self) -> dict[str, Any]:
        lines = [line for line in self.stdout.splitlines() if line.startswith('{"conclusion"')]
        assert len(lines) == 1, self.stdout
        value: dict[str, Any] = json.loads(lines[0])
        return value

    def events(self, name: str) -> list[dict[str, Any]]:
        out = []
        for line in self.stdout.splitlines():
            if line.startswith('{"event"'):
                record = json.loads(line)
                if record["event"] == name:
                    out.append(record)
        return out


def start_action(paths: Paths, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "aw_action", "action"],
        env=env,
        cwd=paths.workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str], paths: Paths, started: float, timeout: float = 60) -> ActionRun:
    stdout, stderr = proc.communicate(timeout=timeout)
    elapsed = time.monotonic() - started
    outputs = parse_file_command(paths.output_file.read_bytes().decode("utf-8"))
    return ActionRun(proc.returncode, stdout, stderr, outputs, paths.summary_file.read_text(), paths, elapsed)


def run_action(
    tmp: Path, inputs: dict[str, str], extra: dict[str, str] | None = None, timeout: float = 60
) -> ActionRun:
    paths = Paths.under(tmp)
    started = time.monotonic()
    return finish(start_action(paths, action_env(paths, inputs, extra)), paths, started, timeout)


def write_script(folder: Path, turns: list[dict[str, Any]]) -> Path:
    path = folder / "script.json"
    path.write_text(json.dumps({"turns": turns}))
    return path
