"""docs/architecture.md's "What a change touches" stays true: every file it names exists, and the
tables those lists rely on are whole (every provider, budget kind, key input and tool has its rows)."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from aw_action.ai.catalog import provider_specs
from aw_action.ai.credentials import credential_table, provider_variables
from aw_action.ai.registry import APIS, TRANSPORTS, load
from aw_action.github.action_inputs import SECRET_INPUTS, ActionInputs
from aw_action.run.budget_kinds import BUDGET_KINDS
from aw_action.run.config import RunConfig
from aw_action.tools import FILE_WRITERS, builtin_tools

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "aw_action"
ARCHITECTURE = (REPO / "docs" / "architecture.md").read_text()
CHANGES = ARCHITECTURE.split("## What a change touches", 1)[1].split("\n## ", 1)[0]
ACTION_INPUTS = YAML(typ="safe").load((REPO / "action.yml").read_text())["inputs"]
GH_AW_DOC = (REPO / "docs" / "gh-aw.md").read_text()


def _named_files() -> list[str]:
    """Every backticked path in the section (``dir/file.py``, ``dir/mod.attr``, ``dir/``, ``x.md``)."""
    tokens = re.findall(r"`([^`\s]+)`", CHANGES)
    return [t for t in tokens if "/" in t or re.search(r"\.(py|json|md|yml|toml|lock)$", t)]


def _exists(token: str) -> bool:
    """A file or folder (under ``aw_action/`` or the repository), or ``module.name`` defined there."""
    token = token.removesuffix("()")
    if any((root / token).exists() for root in (PACKAGE, REPO)):
        return True
    module, _, name = token.rpartition(".")
    sources = [root / f"{module}.py" for root in (PACKAGE, REPO) if module and (root / f"{module}.py").is_file()]
    return any(re.search(rf"^(def|class)? ?{re.escape(name)}\b", p.read_text(), re.MULTILINE) for p in sources)


def test_every_file_the_change_lists_name_exists() -> None:
    named = _named_files()
    assert len(named) > 20, "the section names the files"
    assert [t for t in named if not _exists(t)] == []


@pytest.mark.parametrize("name", sorted(n for n, s in provider_specs().items() if s.transport))
def test_every_provider_has_credential_rows_a_transport_wires_and_a_docs_row(name: str) -> None:
    spec = provider_specs()[name]
    variables = provider_variables(name)
    assert variables, f"{name}: no row in models.json's credentials"
    transport = TRANSPORTS[spec.transport or ""]
    assert callable(load(transport.client))
    assert APIS[spec.api].sdk == transport.sdk, f"{name}: its default API is not spoken by its SDK"
    row = re.search(rf"^\| `{re.escape(name)}/…` \|(.*)$", GH_AW_DOC, re.MULTILINE)
    assert row, f"docs/gh-aw.md's credentials table has no row for {name}"
    assert [v for v in (*variables, spec.base_url_env) if v and f"`{v}`" not in row.group(1)] == []


def test_every_credential_row_serves_known_providers_and_its_input_is_a_masked_action_input() -> None:
    known = set(provider_specs())
    for row in credential_table():
        assert set(row.providers) <= known, row.name
        if row.action_input:
            assert row.action_input in ACTION_INPUTS and row.action_input in SECRET_INPUTS
            assert row.action_input.replace("-", "_") in ActionInputs.model_fields


@pytest.mark.parametrize("kind", BUDGET_KINDS, ids=lambda k: k.name)
def test_every_budget_kind_has_its_field_input_docs_and_gh_aw_reader(kind: object) -> None:
    from aw_action.run.budget_kinds import BudgetKind

    assert isinstance(kind, BudgetKind)
    holder, name = kind.field(RunConfig.model_validate({"engine": {"model": "faux/scripted"}}))
    assert name in type(holder).model_fields
    assert kind.action_input in ACTION_INPUTS
    assert f"`{kind.config_key}`" in (REPO / "docs" / "budgets-steering-repair.md").read_text()
    assert kind.gh_aw_env is None or kind.gh_aw_env.startswith("GH_AW_")


def test_every_builtin_tool_is_one_module_of_tools() -> None:
    tools = builtin_tools()
    names = [tool.name for tool in tools]
    assert len(set(names)) == len(names)
    for tool in tools:
        module = importlib.import_module(type(tool).__module__)
        assert Path(inspect.getfile(module)) == PACKAGE / "tools" / f"{tool.name}.py"
    assert set(FILE_WRITERS) <= set(names)
