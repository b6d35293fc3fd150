"""Shared test helpers: run the real CLI as a subprocess with a controlled environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.suites import marker_for

REPO = Path(__file__).resolve().parent.parent

# Property tests are a gate in CI, so the default profile is derandomized: the same cases every
# run, and a failure reproduces on any machine. `pytest --hypothesis-profile=explore` draws new
# random cases (and more of them) to hunt for bugs; a case it finds becomes a fixed example.
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=5000)
settings.load_profile("default")


@dataclass
class CliRun:
    returncode: int
    stdout: str
    stderr: str
    output_dir: Path

    @property
    def result(self) -> dict[str, Any]:
        lines = [line for line in self.stdout.splitlines() if line.strip()]
        assert len(lines) == 1, f"stdout must hold exactly one JSON object, got: {self.stdout!r}"
        value: dict[str, Any] = json.loads(lines[0])
        return value

    @property
    def events(self) -> list[dict[str, Any]]:
        out = []
        for line in self.stderr.splitlines():
            if line.startswith("{"):
                out.append(json.loads(line))
        return out

    def events_named(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("event") == name]

    @property
    def warnings(self) -> list[dict[str, Any]]:
        """The ``warning`` records, without the one saying tools are not isolated from the
        harness (every run as root with a root-owned workspace and no ``aw-agent`` user: the test
        machine's case; tests/security covers it)."""
        return [e for e in self.events_named("warning") if e.get("check") != "tool-isolation"]


ISOLATION_WARNING = "tools are not isolated from the harness"


def base_env(tmp: Path, **extra: str) -> dict[str, str]:
    """A minimal environment: no credentials leak in from the developer's shell."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT", "TMPDIR")}
    env.update(AW_OUTPUT_DIR=str(tmp / "out"), GITHUB_WORKSPACE=str(tmp / "ws"), PYTHONUNBUFFERED="1")
    (tmp / "ws").mkdir(exist_ok=True)
    env.update(extra)
    return env


def run_cli(args: list[str], env: dict[str, str], cwd: Path | None = None, timeout: float = 60) -> CliRun:
    proc = subprocess.run(
        [sys.executable, "-m", "aw_action", *args],
        env=env,
        cwd=cwd or env.get("GITHUB_WORKSPACE"),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliRun(proc.returncode, proc.stdout, proc.stderr, Path(env["AW_OUTPUT_DIR"]))


def session_tool_texts(session: Path) -> list[str]:
    """The text of every tool result in a run's ``session.jsonl``, in order."""
    texts = []
    for line in session.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("type") == "message" and entry["message"]["role"] == "toolResult":
            texts.append("".join(part.get("text", "") for part in entry["message"]["content"]))
    return texts


def write_run_files(
    tmp: Path, config: dict[str, Any], prompt: str = "Do the task.", script: list[dict[str, Any]] | None = None
) -> tuple[Path, Path]:
    """Write config.json, prompt.txt and (optionally) a faux script; returns (config, prompt) paths."""
    if script is not None:
        (tmp / "script.json").write_text(json.dumps(script))
        config.setdefault("harness", {})["faux-script"] = str(tmp / "script.json")
    cfg = tmp / "config.json"
    cfg.write_text(json.dumps(config))
    prm = tmp / "prompt.txt"
    prm.write_text(prompt)
    return cfg, prm


@pytest.fixture
def tmp_run(tmp_path: Path) -> Path:
    return tmp_path


QUICK_NOTE = (
    "quick suite: the slow and container tests are left out (pytest -m 'slow or container' runs them, .ci/run both)"
)


def _quick_run(config: pytest.Config) -> bool:
    """No test named and no ``-m``: the README's command (tests/suites.py)."""
    return config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.option.markexpr


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test from tests/suites.py's table; a quick run leaves the marked ones out."""
    left_out = []
    for item in items:
        marker = marker_for(item.nodeid)
        if marker is not None:
            item.add_marker(marker)
            left_out.append(item)
    if left_out and _quick_run(config):
        config.hook.pytest_deselected(items=left_out)
        kept = set(map(id, left_out))
        items[:] = [item for item in items if id(item) not in kept]


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if _quick_run(config):
        terminalreporter.write_line(QUICK_NOTE)
