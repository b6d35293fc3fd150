"""One fact, one place: the config is read, validated and given its model in the config layer only,
and a run resolves its model against the catalog once."""

from __future__ import annotations

import ast
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

import aw_action.config.resolve as resolve_module
from aw_action.harness.invocation import Harness
from tests.conftest import base_env, write_run_files

PACKAGE = Path(__file__).resolve().parents[2] / "aw_action"


def _modules() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield str(path.relative_to(PACKAGE)), ast.parse(path.read_text(encoding="utf-8"))


def _callers(name: str) -> set[str]:
    """Modules that call ``name`` (as a bare name or an attribute), its definition aside."""
    found = set()
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
                if called == name:
                    found.add(module)
    return found


def _sets_engine_model(node: ast.AST) -> bool:
    """``<x>.engine.model = ...`` or ``engine["model"] = ...``."""
    if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
        return node.attr == "model" and isinstance(node.value, ast.Attribute) and node.value.attr == "engine"
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        key = node.slice
        target = node.value
        named_engine = isinstance(target, ast.Name) and target.id == "engine"
        return named_engine and isinstance(key, ast.Constant) and key.value == "model"
    return False


def test_engine_model_is_set_in_one_module() -> None:
    setters = {module for module, tree in _modules() for node in ast.walk(tree) if _sets_engine_model(node)}
    assert setters == {"config/environment.py"}


def test_config_json_is_read_and_validated_in_the_config_layer() -> None:
    assert _callers("read_json_file") == {"config/document.py"}
    validators = {m for m, tree in _modules() for n in ast.walk(tree) if _validates_run_config(n)}
    assert validators == {"config/document.py"}
    assert _callers("read_document") <= {"config/resolve.py", "safe_outputs/config.py"}


def _validates_run_config(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id == "RunConfig"
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("model_validate", "model_validate_json")
        and isinstance(func.value, ast.Name)
        and func.value.id == "RunConfig"
    )


def test_the_model_name_is_resolved_and_qualified_in_one_module_each() -> None:
    assert _callers("resolve_model") == {"config/resolve.py"}
    assert _callers("qualify_model") == {"config/environment.py"}


def test_a_budget_kinds_config_path_is_walked_in_one_function() -> None:
    walkers = set()
    for module, tree in _modules():
        for node in ast.walk(tree):
            loops = isinstance(node, ast.For | ast.comprehension) and "config_path" in ast.unparse(node.iter)
            if loops:
                walkers.add(module)
    assert walkers == {"run/budget_kinds.py"}


@pytest.fixture
def counted_resolutions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = resolve_module.resolve_model

    def counting(name: str) -> object:
        names.append(name)
        return real(name)

    monkeypatch.setattr(resolve_module, "resolve_model", counting)
    return names


async def test_a_run_resolves_its_model_once(tmp_path: Path, counted_resolutions: list[str]) -> None:
    cfg, prompt = write_run_files(tmp_path, {"engine": {"model": "scripted"}}, script=[{"text": "done"}])
    result = await Harness(cfg, prompt, base_env(tmp_path), stderr=io.StringIO()).run()
    assert (result.exit_code, result.model) == (0, "faux/scripted")
    assert counted_resolutions == ["scripted"]
