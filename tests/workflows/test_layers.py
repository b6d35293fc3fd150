"""The new packages keep the layer rule: imports point down only."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "aw_action"


def _imports(folder: str) -> set[str]:
    names = set()
    for path in (PACKAGE / folder).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    return {name for name in names if name.startswith("aw_action")}


def test_policy_is_a_leaf_package() -> None:
    """Nothing of the harness's but itself and the bottom layer's dataclass decorator."""
    outside = {name for name in _imports("policy") if not name.startswith("aw_action.policy")}
    assert outside - {"aw_action.lazy_dataclass"} == set()


@pytest.mark.parametrize("upper", ["extensions", "sinks", "github", "harness", "cli", "action", "inputs", "config"])
def test_workflows_never_import_upper_layers(upper: str) -> None:
    assert not any(name.startswith(f"aw_action.{upper}") for name in _imports("workflows"))
