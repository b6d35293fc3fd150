"""gh-aw's agent step as the harness's inputs: prompt and model; bad input named."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.exits import InvocationError
from aw_action.ghaw.invocation import build


def test_prompt_file_from_gh_aw_prompt_wins_over_the_argument() -> None:
    inv = build({"GH_AW_PROMPT": "/tmp/gh-aw/aw-prompts/prompt.txt", "AW_HARNESS_MODEL": "sonnet"},
                argv_prompt="the same text, as argv")  # fmt: skip
    assert inv.prompt_file == Path("/tmp/gh-aw/aw-prompts/prompt.txt") and inv.prompt_text is None


def test_the_prompt_argument_is_the_fallback() -> None:
    inv = build({"AW_HARNESS_MODEL": "sonnet"}, argv_prompt="-- do it")
    assert inv.prompt_file is None and inv.prompt_text == "-- do it"


def test_no_prompt_at_all_names_gh_aw_prompt() -> None:
    with pytest.raises(InvocationError, match="GH_AW_PROMPT is not set and no prompt argument"):
        build({"AW_HARNESS_MODEL": "sonnet"}, argv_prompt="  ")


def test_model_from_env_flag_or_config() -> None:
    env = {"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": " gpt-5 "}
    assert build(env).config["engine"]["model"] == "gpt-5", "qualified later, where every entry point loads config"
    flagged = build(env, model_flag="anthropic/claude-sonnet-4-6")
    assert flagged.config["engine"]["model"] == "anthropic/claude-sonnet-4-6"
    from_file = build({"GH_AW_PROMPT": "p"}, config_data={"engine": {"id": "aw", "model": "haiku"}}).config
    assert from_file["engine"] == {"id": "aw", "model": "haiku"}


def test_no_model_names_the_variable() -> None:
    with pytest.raises(InvocationError, match="AW_HARNESS_MODEL"):
        build({"GH_AW_PROMPT": "p"})


def test_the_callers_config_is_not_changed() -> None:
    data = {"engine": {"model": "haiku"}, "harness": {"budget": {"max-turns": 30}}}
    build({"GH_AW_PROMPT": "p", "AW_HARNESS_MODEL": "sonnet"}, config_data=data)
    assert data == {"engine": {"model": "haiku"}, "harness": {"budget": {"max-turns": 30}}}
