"""gh-aw's agent step as the harness's inputs: prompt and model; bad input named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aw_action.config import resolve_config
from aw_action.exits import InvocationError
from aw_action.ghaw.invocation import choose_prompt, config_sources


def test_prompt_file_from_gh_aw_prompt_wins_over_the_argument() -> None:
    env = {"GH_AW_PROMPT": "/tmp/gh-aw/aw-prompts/prompt.txt", "AW_HARNESS_MODEL": "sonnet"}
    assert choose_prompt(env, "the same text, as argv") == (Path("/tmp/gh-aw/aw-prompts/prompt.txt"), None)


def test_the_prompt_argument_is_the_fallback() -> None:
    assert choose_prompt({"AW_HARNESS_MODEL": "sonnet"}, "-- do it") == (None, "-- do it")


def test_no_prompt_at_all_names_gh_aw_prompt() -> None:
    with pytest.raises(InvocationError, match="GH_AW_PROMPT is not set and no prompt argument"):
        choose_prompt({"AW_HARNESS_MODEL": "sonnet"}, "  ")


def test_model_from_flag_env_or_config(tmp_path: Path) -> None:
    virtual = tmp_path / "aw-harness.gh-aw.json"
    env = {"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": " gpt-5 "}
    assert resolve_config(config_sources(env, virtual, file=False), env).model.ref == "openai/gpt-5"
    flagged = config_sources(env, virtual, file=False, model_flag="anthropic/claude-sonnet-4-6")
    assert resolve_config(flagged, env).model.ref == "anthropic/claude-sonnet-4-6"
    config = tmp_path / "aw-harness.json"
    config.write_text(json.dumps({"engine": {"id": "aw", "model": "haiku"}, "harness": {"budget": {"max-turns": 30}}}))
    from_file = resolve_config(config_sources({}, config, file=True), {})
    assert (from_file.model.ref, from_file.config.harness.budget.max_turns) == ("anthropic/claude-haiku-4-5", 30)


def test_no_model_names_the_variable(tmp_path: Path) -> None:
    with pytest.raises(InvocationError, match="AW_HARNESS_MODEL"):
        resolve_config(config_sources({}, tmp_path / "virtual.json", file=False), {})
