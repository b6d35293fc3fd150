"""gh-aw's agent step as the harness's inputs: prompt, model, limits; bad input named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aw_action.exits import InvocationError
from aw_action.ghaw.invocation import build
from aw_action.ghaw.limits import GhAwLimits
from aw_action.run.config import RunConfig

NOW = 1_700_000_000_000


def config_of(env: dict[str, str], limits: GhAwLimits | None = None, **kw: Any) -> RunConfig:
    inv = build(env, limits or GhAwLimits(), NOW, **kw)
    return RunConfig.model_validate(inv.config)


def test_prompt_file_from_gh_aw_prompt_wins_over_the_argument() -> None:
    inv = build({"GH_AW_PROMPT": "/tmp/gh-aw/aw-prompts/prompt.txt", "AW_HARNESS_MODEL": "sonnet"}, GhAwLimits(), NOW,
                argv_prompt="the same text, as argv")  # fmt: skip
    assert inv.prompt_file == Path("/tmp/gh-aw/aw-prompts/prompt.txt") and inv.prompt_text is None


def test_the_prompt_argument_is_the_fallback() -> None:
    inv = build({"AW_HARNESS_MODEL": "sonnet"}, GhAwLimits(), NOW, argv_prompt="-- do it")
    assert inv.prompt_file is None and inv.prompt_text == "-- do it"


def test_no_prompt_at_all_names_gh_aw_prompt() -> None:
    with pytest.raises(InvocationError, match="GH_AW_PROMPT is not set and no prompt argument"):
        build({"AW_HARNESS_MODEL": "sonnet"}, GhAwLimits(), NOW, argv_prompt="  ")


def test_model_from_env_flag_or_config_and_qualified_by_gh_aw_llm_provider() -> None:
    env = {"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "gpt-5", "GH_AW_LLM_PROVIDER": "github"}
    assert config_of(env).engine.model == "copilot/gpt-5"
    assert config_of(env, model_flag="anthropic/claude-sonnet-4-6").engine.model == "anthropic/claude-sonnet-4-6"
    from_file = config_of({"GH_AW_PROMPT": "p"}, config_data={"engine": {"id": "aw", "model": "haiku"}})
    assert from_file.engine.model == "haiku" and from_file.engine.id == "aw"


def test_no_model_names_the_variable() -> None:
    with pytest.raises(InvocationError, match="AW_HARNESS_MODEL"):
        build({"GH_AW_PROMPT": "p"}, GhAwLimits(), NOW)


def test_gh_aw_limits_become_the_runs_limits() -> None:
    limits = GhAwLimits(timeout_minutes=20, started_at_ms=NOW - 5 * 60_000, max_turns=8)
    config = config_of({"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "sonnet"}, limits)
    assert config.timeout_minutes == pytest.approx(15.0), "five of the step's twenty minutes went before the harness"
    assert config.harness.budget.max_turns == 8


@pytest.mark.parametrize(
    ("configured", "gh_aw", "expected"),
    [({"timeout-minutes": 10, "harness": {"budget": {"max-turns": 30}}}, (20, 8), (10, 8)),
     ({"timeout_minutes": 45, "harness": {"budget": {"max_turns": 3}}}, (20, 8), (20, 3)),
     ({"timeout-minutes": 10}, (None, None), (10, None))],
)  # fmt: skip
def test_the_stricter_of_config_and_gh_aw_wins(
    configured: dict[str, Any], gh_aw: tuple[float | None, int | None], expected: tuple[float, int | None]
) -> None:
    limits = GhAwLimits(timeout_minutes=gh_aw[0], max_turns=gh_aw[1])
    config = config_of({"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "sonnet"}, limits, config_data=configured)
    assert (config.timeout_minutes, config.harness.budget.max_turns) == pytest.approx(expected)


def test_a_bad_configured_value_is_left_for_the_config_loader_to_name() -> None:
    inv = build({"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "sonnet"}, GhAwLimits(max_turns=4), NOW,
                config_data={"harness": {"budget": {"max-turns": "lots"}}})  # fmt: skip
    assert inv.config["harness"]["budget"]["max-turns"] == "lots"


def test_a_step_whose_time_is_up_is_an_invocation_error() -> None:
    limits = GhAwLimits(timeout_minutes=1, started_at_ms=NOW - 120_000)
    with pytest.raises(InvocationError, match="GH_AW_TIMEOUT_MINUTES: the agent step's time is already up"):
        build({"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "sonnet"}, limits, NOW)


def test_credits_are_not_copied_into_the_config() -> None:
    # AWF's proxy enforces GH_AW_MAX_AI_CREDITS, and the cost tracker reads the variable itself.
    config = config_of({"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "sonnet"}, GhAwLimits(max_ai_credits=1000))
    assert config.harness.budget.max_ai_credits is None


def test_the_callers_config_is_not_changed() -> None:
    data = {"engine": {"model": "haiku"}, "harness": {"budget": {"max-turns": 30}}}
    build({"GH_AW_PROMPT": "p"}, GhAwLimits(timeout_minutes=5, max_turns=2), NOW, config_data=data)
    assert data == {"engine": {"model": "haiku"}, "harness": {"budget": {"max-turns": 30}}}
