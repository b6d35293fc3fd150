"""The README documents every input and output of action.yml, and opens with the two commands."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from tests.suites import CONTAINER, SLOW, marker_for

REPO = Path(__file__).resolve().parents[2]


def test_readme_lists_every_action_input_and_output() -> None:
    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    readme = (REPO / "README.md").read_text()
    missing = [n for n in [*action["inputs"], *action["outputs"]] if f"| `{n}` |" not in readme]
    assert missing == []


def test_readme_opens_with_the_demo_and_test_commands_and_says_how_long_they_take() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    comments = [line for line in block.splitlines() if line.startswith("#")]
    assert len(commands) == 2
    assert "aw-harness --config examples/demo/config.json" in commands[0]
    assert commands[1].strip() == ".venv/bin/python -m pytest -n auto"
    assert all(re.search(r"about (a|\d+) minutes?", comment) for comment in comments), comments
    ci = (REPO / ".ci" / "run").read_text()
    assert f"{commands[1].strip()} -rs ||" in ci, ".ci/run runs the README's command"
    assert f'{commands[1].strip()} -rs -m "slow or container" ||' in ci, "...and then what it leaves out"


def _collected(*args: str) -> set[str]:
    command = [sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", *args]  # -q: addopts
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return {line for line in proc.stdout.splitlines() if "::" in line}


def test_the_quick_suite_and_the_rest_are_every_test_once() -> None:
    """The README's command leaves out exactly the tests tests/suites.py names, and every name
    there still matches a test (a renamed file cannot slip back into the quick suite unseen)."""
    quick, rest = _collected(), _collected("-m", "slow or container")
    assert quick and rest and not quick & rest
    assert all(marker_for(node) is None for node in quick)
    assert all(marker_for(node) in ("slow", "container") for node in rest)
    for prefix in (*SLOW, *CONTAINER):
        assert any(node.startswith(prefix) for node in rest), f"tests/suites.py: {prefix} matches no test"
