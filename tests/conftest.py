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

REPO = Path(__file__).resolve().parent.parent


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
