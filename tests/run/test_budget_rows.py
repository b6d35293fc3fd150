"""A budget kind is one row: its stop reason, its explanation and its gh-aw variable come from
``run/budget_kinds.py`` alone. These tests know no kind by name: they read the table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from aw_action.config.environment import apply_environment
from aw_action.run.budget_kinds import BUDGET_KINDS, BudgetKind
from aw_action.run.config import RunConfig
from aw_action.run.explain import EXPLAINERS, explain
from aw_action.run.record import Reporting
from aw_action.run.result import RunResult
from aw_action.run.state import RunState

PACKAGE = Path(__file__).resolve().parents[2] / "aw_action"
TABLE = PACKAGE / "run" / "budget_kinds.py"


def _code_strings(path: Path) -> set[str]:
    """The string constants of ``path`` that are code (docstrings and comments left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    strings = (n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return {n.value for n in strings if id(n) not in docs}


def _own_words(kind: BudgetKind) -> set[str]:
    """What names this kind and nothing else: its settings, its gh-aw variable and, for a
    counting gate, its stop reason (``budget_exceeded`` and ``timeout`` name other things too)."""
    words = {kind.action_input, kind.config_key, kind.config_path[-1], kind.config_path[-1].replace("-", "_")}
    words |= {w for w in (kind.env, kind.gh_aw_env) if w}
    if kind.gate_stop:
        words.add(kind.stop_reason)
    return words - {"timeout-minutes", "timeout_minutes"}  # the run's own timeout is a config field


@pytest.mark.parametrize("kind", BUDGET_KINDS, ids=lambda k: k.name)
def test_a_kind_is_spelled_as_code_in_the_table_alone(kind: BudgetKind) -> None:
    config_module = PACKAGE / "run" / "config.py"  # the kind's field in Budget
    spelled = {
        str(path.relative_to(PACKAGE)): sorted(_own_words(kind) & _code_strings(path))
        for path in PACKAGE.rglob("*.py")
        if path not in (TABLE, config_module)
    }
    assert {path: words for path, words in spelled.items() if words} == {}


@pytest.mark.parametrize("kind", BUDGET_KINDS, ids=lambda k: k.name)
def test_a_kinds_stop_reason_is_explained_by_its_row(kind: BudgetKind) -> None:
    assert kind.stop_reason in EXPLAINERS
    if kind.gate == "deadline":
        return  # the deadline's explanation is the timeout's own (tests/sinks/test_summary_header.py)
    state = RunState.for_model("anthropic/claude-sonnet-4-5")
    state.record.reporting = Reporting("cli")
    state.record.publish_limits({kind.name: 4})
    trigger = kind.stop_reason if kind.gate_stop else "critical_percent"
    state.journal.record_budget_stop({"budget": kind.name, "used": 4.0, "limit": 4, "trigger": trigger})
    explanation = explain(RunResult.ended(kind.stop_reason, state.model, state), "cli")
    assert explanation.title == f"Stopped by the {kind.limit_name}"
    assert kind.gate_stop in explanation.plain()
    assert kind.config_key in explanation.plain()


def test_only_the_counting_gates_need_words_of_their_own() -> None:
    for kind in BUDGET_KINDS:
        assert bool(kind.gate_stop) == (kind.gate in ("turns", "tool_calls")), kind.name


@pytest.mark.parametrize("kind", [k for k in BUDGET_KINDS if k.gh_aw_env], ids=lambda k: k.name)
def test_a_kinds_gh_aw_variable_sets_its_limit_inside_gh_aw(kind: BudgetKind, tmp_path: Path) -> None:
    config = RunConfig.model_validate({"engine": {"model": "faux/scripted"}})
    assert kind.gh_aw_env is not None
    env = {"GITHUB_AW": "true", kind.gh_aw_env: "7", "AW_AGENT_START_FILE": str(tmp_path / "absent")}
    resolved = apply_environment(config, env, now_ms=1_000_000)
    assert resolved.harness.budget is not None
    assert kind.configured(resolved) == 7
    if kind.gh_aw_off is not None:
        off = apply_environment(config, {**env, kind.gh_aw_env: kind.gh_aw_off}, now_ms=1_000_000)
        assert kind.configured(off) == kind.configured(config)
