"""``--help`` names every subcommand; ``--version`` the installed package's version."""

from __future__ import annotations

import re
import subprocess
import sys

from aw_action import cli
from tests.conftest import REPO


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aw_action", *args], capture_output=True, text=True, timeout=60)


def test_help_lists_every_subcommand_with_a_line_of_help() -> None:
    assert set(cli.SUBCOMMAND_HELP) == set(cli.SUBCOMMANDS)
    run = _cli("--help")
    assert run.returncode == 0 and run.stderr == ""
    assert "aw-harness --config CONFIG --prompt PROMPT" in run.stdout
    for name, text in cli.SUBCOMMAND_HELP.items():
        assert re.search(rf"^  {re.escape(name)} +{re.escape(text)}$", run.stdout, re.M), name
    assert "exit codes: 0 completed, 1 session failure, 2 invocation error" in run.stdout


def test_version_is_the_packages() -> None:
    declared = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M)
    assert declared is not None
    run = _cli("--version")
    assert run.returncode == 0 and run.stdout.strip() == f"aw-harness {declared.group(1)}"
