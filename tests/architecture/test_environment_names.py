"""The runner's variables and the harness's own are spelled in the environment layer alone.

A ``GITHUB_*``, ``RUNNER_*``, ``ACTIONS_*`` or ``AW_*`` name written as a string anywhere else in
``aw_action/`` fails this test: read the runner's facts from ``environment/runner.RunnerFacts``
and a tuning variable through its row in ``environment/tuning.py``. Docstrings may name them.
Exempt: the environment layer itself; the exec wrapper and the spawn server (standard library
only: they get their values on their command line); the runner-side action's launcher (standard
library only, it runs before the harness: docs/toolchain.md); the credential table's names
(``ai/models.json``'s ``credentials``, such as ``GITHUB_TOKEN``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from aw_action.ai.credentials import credential_table

PACKAGE = Path(__file__).resolve().parents[2] / "aw_action"
LAYER = PACKAGE / "environment"
EXEMPT = {
    PACKAGE / "security" / "confinement" / "landlock.py",
    PACKAGE / "security" / "confinement" / "spawn_server.py",
    PACKAGE / "runner_launch.py",  # the runner-side action's launcher: standard library only, it runs
    # before the harness and hands its one variable (``AW_ACTION_INPUTS``) over as ``INPUT_*``
}
NAME = re.compile(r"(?<![A-Za-z0-9_])(?:GITHUB|RUNNER|ACTIONS|AW)_[A-Z0-9_]*")


def _credential_names() -> frozenset[str]:
    return frozenset(name for row in credential_table() for name in (row.name, *row.requires, *row.with_))


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of every docstring constant: a string that is a statement on its own."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    }


def spelled_names(source: str) -> list[tuple[int, str]]:
    """Each runner or ``AW_*`` name ``source`` writes in a string that is no docstring."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    credentials = _credential_names()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found += [(node.lineno, m) for m in NAME.findall(node.value) if m not in credentials]
    return found


def offenders() -> dict[str, list[tuple[int, str]]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.is_relative_to(LAYER) or path in EXEMPT:
            continue
        names = spelled_names(path.read_text(encoding="utf-8"))
        if names:
            out[str(path.relative_to(PACKAGE.parent))] = names
    return out


def test_runner_and_harness_variables_are_spelled_in_the_environment_layer_alone() -> None:
    found = offenders()
    lines = [f"{path}:{line}: {name}" for path, names in found.items() for line, name in names]
    assert not found, f"{len(found)} modules spell environment variables outside aw_action/environment/:\n" + "\n".join(
        lines
    )


def test_the_check_sees_a_name_in_code_and_not_in_a_docstring() -> None:
    source = (
        '"""Reads GITHUB_RUN_ID."""\nx = env.get("GITHUB_RUN_ID")\ny = f"{a} AW_OUTPUT_DIR"\nz = "GH_AW_MAX_TURNS"\n'
    )
    assert spelled_names(source) == [(2, "GITHUB_RUN_ID"), (3, "AW_OUTPUT_DIR")]
    assert spelled_names('t = "GITHUB_TOKEN"\n') == []
