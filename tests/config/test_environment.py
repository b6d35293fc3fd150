"""What the environment adds to a loaded config: the provider GH_AW_LLM_PROVIDER names (every
mode) and, in gh-aw mode, the GH_AW_* limits with the stricter of them and config.json winning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aw_action.config.environment import apply_environment
from aw_action.exits import InvocationError
from aw_action.run.budget_kinds import BUDGET_KINDS, resolve_limits
from aw_action.run.config import RunConfig

NOW = 1_700_000_000_000
GH_AW = {"GITHUB_AW": "true"}


def config(model: str = "anthropic/claude-sonnet-4-6", **data: Any) -> RunConfig:
    return RunConfig.model_validate({"engine": {"model": model}, **data})


def budget(**values: Any) -> dict[str, Any]:
    return {"harness": {"budget": values}}


def test_gh_aw_llm_provider_qualifies_a_bare_model_in_every_mode() -> None:
    for mode in ({}, GH_AW):
        env = {**mode, "GH_AW_LLM_PROVIDER": "github"}
        assert apply_environment(config("gpt-5"), env, NOW).engine.model == "copilot/gpt-5"
        assert apply_environment(config("anthropic/claude-sonnet-4-6"), env, NOW).engine.model == (
            "anthropic/claude-sonnet-4-6"
        ), "a model that names its provider keeps it"
    assert apply_environment(config("sonnet"), {}, NOW).engine.model == "sonnet", "no hint: unchanged"


def test_gh_aw_limits_become_the_runs_limits(tmp_path: Path) -> None:
    start = tmp_path / "agent_cli_start_ms.txt"
    start.write_text(str(NOW - 5 * 60_000))
    env = {**GH_AW, "AW_AGENT_START_FILE": str(start), "GH_AW_TIMEOUT_MINUTES": "20", "GH_AW_MAX_TURNS": "8",
           "GH_AW_MAX_TOOL_CALLS": "40", "GH_AW_MAX_AI_CREDITS": "250"}  # fmt: skip
    out = apply_environment(config(), env, NOW)
    assert out.timeout_minutes == pytest.approx(15.0), "five of the step's twenty minutes went before the harness"
    b = out.harness.budget
    assert (b.max_turns, b.max_tool_calls, b.max_ai_credits) == (8, 40, 250.0)
    assert isinstance(b.max_turns, int) and isinstance(b.max_tool_calls, int)
    limits = resolve_limits(out)
    assert {n: lim.limit for n, lim in limits.items()} == pytest.approx(
        {"minutes": 15.0, "turns": 8, "tool_calls": 40, "ai_credits": 250.0}
    )


def test_without_a_start_file_the_clock_starts_now(tmp_path: Path) -> None:
    env = {**GH_AW, "AW_AGENT_START_FILE": str(tmp_path / "absent"), "GH_AW_TIMEOUT_MINUTES": "7"}
    assert apply_environment(config(), env, NOW).timeout_minutes == pytest.approx(7.0)


@pytest.mark.parametrize(
    ("configured", "gh_aw", "expected"),
    [
        ({"timeout-minutes": 10, **budget(**{"max-turns": 30, "max-tool-calls": 5, "max-ai-credits": 90})},
         {"GH_AW_TIMEOUT_MINUTES": "20", "GH_AW_MAX_TURNS": "8", "GH_AW_MAX_TOOL_CALLS": "50",
          "GH_AW_MAX_AI_CREDITS": "1000"},
         (10, 8, 5, 90)),
        ({"timeout-minutes": 45, **budget(**{"max-turns": 3, "max-tool-calls": 500, "max-ai-credits": 5000})},
         {"GH_AW_TIMEOUT_MINUTES": "20", "GH_AW_MAX_TURNS": "8", "GH_AW_MAX_TOOL_CALLS": "50",
          "GH_AW_MAX_AI_CREDITS": "1000"},
         (20, 3, 50, 1000)),
        ({"timeout-minutes": 10, **budget(**{"max-ai-credits": 90})},
         {"GH_AW_MAX_TURNS": "", "GH_AW_MAX_AI_CREDITS": "-1"},
         (10, None, None, 90)),
    ],
)  # fmt: skip
def test_the_stricter_of_config_and_gh_aw_wins(
    configured: dict[str, Any], gh_aw: dict[str, str], expected: tuple[Any, ...], tmp_path: Path
) -> None:
    env = {**GH_AW, "AW_AGENT_START_FILE": str(tmp_path / "none"), **gh_aw}
    out = apply_environment(config(**configured), env, NOW)
    b = out.harness.budget
    assert (out.timeout_minutes, b.max_turns, b.max_tool_calls, b.max_ai_credits) == pytest.approx(expected)


def test_standalone_runs_ignore_gh_aw_limits_but_keep_the_credit_fallback() -> None:
    env = {"GH_AW_MAX_TURNS": "2", "GH_AW_MAX_TOOL_CALLS": "3", "GH_AW_TIMEOUT_MINUTES": "1"}
    env["GH_AW_MAX_AI_CREDITS"] = "7"
    out = apply_environment(config(), env, NOW)
    assert (out.timeout_minutes, out.harness.budget.max_turns, out.harness.budget.max_tool_calls) == (20, None, None)
    assert {n: lim.limit for n, lim in resolve_limits(out).items()} == {"minutes": 20, "ai_credits": 7.0}


def test_disabled_credits_in_gh_aw_mode_are_no_limit_not_an_error() -> None:
    env = {**GH_AW, "GH_AW_MAX_AI_CREDITS": "-1"}
    out = apply_environment(config(), env, NOW)
    assert "ai_credits" not in resolve_limits(out)


@pytest.mark.parametrize(
    ("name", "value", "problem"),
    [
        ("GH_AW_MAX_TURNS", "ten", "not a whole number"),
        ("GH_AW_MAX_TURNS", "2.5", "not a whole number"),
        ("GH_AW_MAX_TOOL_CALLS", "0", "must be between 1"),
        ("GH_AW_MAX_TOOL_CALLS", "-3", "not a whole number"),
        ("GH_AW_TIMEOUT_MINUTES", "inf", "not a number"),
        ("GH_AW_TIMEOUT_MINUTES", "nan", "not a number"),
        ("GH_AW_MAX_AI_CREDITS", "1e999", "not a finite number"),
        ("GH_AW_MAX_AI_CREDITS", "lots", "not a number"),
        ("GH_AW_MAX_TOOL_DENIALS", "x", "not a whole number"),
    ],
)
def test_a_malformed_limit_is_an_invocation_error_naming_it(name: str, value: str, problem: str) -> None:
    with pytest.raises(InvocationError, match=f"^{name}: {problem}"):
        apply_environment(config(), {**GH_AW, name: value}, NOW)


def test_a_step_whose_time_is_up_is_an_invocation_error(tmp_path: Path) -> None:
    start = tmp_path / "start"
    start.write_text(str(NOW - 120_000))
    env = {**GH_AW, "GH_AW_TIMEOUT_MINUTES": "1", "AW_AGENT_START_FILE": str(start)}
    with pytest.raises(InvocationError, match=r"^GH_AW_TIMEOUT_MINUTES: the agent step's time is already up"):
        apply_environment(config(), env, NOW)


def test_an_unreadable_start_file_is_named(tmp_path: Path) -> None:
    start = tmp_path / "start"
    start.write_text("yesterday")
    env = {**GH_AW, "GH_AW_TIMEOUT_MINUTES": "1", "AW_AGENT_START_FILE": str(start)}
    with pytest.raises(InvocationError, match="start: expected epoch milliseconds"):
        apply_environment(config(), env, NOW)


def test_the_callers_config_is_not_changed() -> None:
    original = config("gpt-5", **budget(**{"max-turns": 30}))
    apply_environment(original, {**GH_AW, "GH_AW_MAX_TURNS": "2", "GH_AW_LLM_PROVIDER": "github"}, NOW)
    assert (original.engine.model, original.harness.budget.max_turns) == ("gpt-5", 30)


def test_every_gh_aw_variable_of_the_budget_table_is_one_gh_aw_sets() -> None:
    # The agent step's variables (notes gh-aw-runtime §1; gh-aw pkg/workflow/*_engine.go).
    known = {"GH_AW_TIMEOUT_MINUTES", "GH_AW_MAX_TURNS", "GH_AW_MAX_TOOL_CALLS", "GH_AW_MAX_AI_CREDITS"}
    assert {k.gh_aw_env for k in BUDGET_KINDS if k.gh_aw_env} == known
