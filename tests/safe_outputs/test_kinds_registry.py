"""A safe-output kind is one module and one row in ``kinds.KINDS`` (docs/architecture.md, "What a
change touches"): every registered kind has its module, a tool schema in gh-aw's shape and its
docs rows, and its name appears in no other module of ``aw_action/``."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aw_action.safe_outputs.config import SafeOutputsConfig
from aw_action.safe_outputs.kinds import BY_TYPE, KINDS
from aw_action.safe_outputs.kinds.base import SafeOutputKind

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "aw_action"
KINDS_DIR = PACKAGE / "safe_outputs" / "kinds"
DATA = Path(__file__).parent / "data"
GH_AW_TOOLS = {
    t["name"]: t
    for file in ("gh_aw_safe_outputs_tools.json", "gh_aw_more_tools.json")
    for t in json.loads((DATA / file).read_text())
}
SAFE_OUTPUTS_DOC = (REPO / "docs" / "safe-outputs.md").read_text()

NOT_OURS = {("create_issue", "apply_outputs/github_writer.py"): "PyGithub's Repository.create_issue, a method name"}
"""Occurrences of a kind's name that are some other API's name, not the kind."""


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_registered_kind_is_its_own_module(kind: SafeOutputKind[Any]) -> None:
    module = sys.modules[type(kind).__module__]
    assert module.__name__ == f"aw_action.safe_outputs.kinds.{kind.name}"
    assert module.KIND is kind and BY_TYPE[kind.name] is kind
    assert kind.key == kind.name.replace("_", "-")
    assert "max" in kind.config_model.model_fields, "every kind has its per-run limit"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_registered_kind_has_a_tool_schema_in_gh_aws_shape(kind: SafeOutputKind[Any]) -> None:
    description, parameters = kind.tool(kind.config_model(), SafeOutputsConfig())
    jsonschema.Draft202012Validator.check_schema(parameters)
    assert description and parameters["additionalProperties"] is False
    reference = GH_AW_TOOLS[kind.name]["inputSchema"]
    assert set(parameters["properties"]) <= set(reference["properties"]), "only gh-aw's fields"
    assert set(parameters["properties"]) == set(kind.fields), "the schema offers exactly the fields validation takes"


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_every_registered_kind_has_its_docs_rows(kind: SafeOutputKind[Any]) -> None:
    assert f"| `{kind.key}` |" in SAFE_OUTPUTS_DOC, "a row in the config table"
    tools = next(line for line in SAFE_OUTPUTS_DOC.splitlines() if line.startswith("- **Tools**"))
    assert f"`{kind.name}`" in tools, "named among the agent's tools"


def _modules_naming(name: str) -> set[str]:
    spelled = re.compile(rf"(?<![\w-])({re.escape(name)}|{re.escape(name.replace('_', '-'))})(?![\w-])")
    found = set()
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if spelled.search(path.read_text(encoding="utf-8")) and (name, rel) not in NOT_OURS:
            found.add(rel)
    return found


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_a_kind_is_named_only_in_its_module_and_the_registry(kind: SafeOutputKind[Any]) -> None:
    own = f"safe_outputs/kinds/{kind.name}.py"
    assert (KINDS_DIR / f"{kind.name}.py").is_file()
    assert _modules_naming(kind.name) <= {own, "safe_outputs/kinds/__init__.py"}
