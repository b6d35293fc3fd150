"""The README documents every input and output of action.yml, and opens with the two commands."""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML

REPO = Path(__file__).resolve().parents[2]


def test_readme_lists_every_action_input_and_output() -> None:
    action = YAML(typ="safe").load((REPO / "action.yml").read_text())
    readme = (REPO / "README.md").read_text()
    missing = [n for n in [*action["inputs"], *action["outputs"]] if f"| `{n}` |" not in readme]
    assert missing == []


def test_readme_opens_with_the_demo_and_test_commands() -> None:
    readme = (REPO / "README.md").read_text()
    block = readme.split("```bash", 1)[1].split("```", 1)[0]
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert len(commands) == 2
    assert "aw-harness --config examples/demo/config.json" in commands[0]
    assert commands[1].strip() == ".venv/bin/python -m pytest"
    assert commands[1].strip() in (REPO / ".ci" / "run").read_text()
