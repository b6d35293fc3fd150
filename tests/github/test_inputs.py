"""Inputs from the INPUT_* environment, named the way the runner names them (hyphens kept)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from aw_action.github.action_inputs import (
    ActionInputError,
    ActionInputs,
    env_name,
    parse_headers,
    secret_values,
    split_list,
)
from aw_action.github.plan import build_plan

SetInputs = Callable[..., None]


@pytest.fixture
def set_inputs(monkeypatch: pytest.MonkeyPatch) -> SetInputs:
    for name in list(os.environ):
        if name.upper().startswith("INPUT_"):
            monkeypatch.delenv(name)

    def apply(**inputs: str) -> None:
        for key, value in inputs.items():
            monkeypatch.setenv(env_name(key.replace("_", "-")), value)

    return apply


def test_env_name_keeps_hyphens_and_upper_cases() -> None:
    assert env_name("max-effective-tokens") == "INPUT_MAX-EFFECTIVE-TOKENS"
    assert env_name("a b") == "INPUT_A_B"


def test_hyphenated_inputs_are_read(set_inputs: SetInputs) -> None:
    set_inputs(max_effective_tokens="150000", max_turns="7", prompt_file="p.txt", upload_artifacts="false")
    inputs = ActionInputs.from_env()
    assert inputs.max_effective_tokens == 150000
    assert inputs.max_turns == 7
    assert inputs.prompt_file == "p.txt"
    assert inputs.upload_artifacts is False


def test_empty_and_blank_values_mean_unset(set_inputs: SetInputs) -> None:
    set_inputs(max_turns="", model="   ", upload_artifacts="")
    inputs = ActionInputs.from_env()
    assert inputs.max_turns is None and inputs.model is None
    assert inputs.upload_artifacts is True


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("max-turns", "0", "greater than 0"),
        ("max-turns", "three", "valid integer"),
        ("max-effective-tokens", "-5", "greater than 0"),
        ("timeout-minutes", "soon", "valid number"),
        ("compaction", "aggressive", "'none', 'sliding-window' or 'summarize'"),
        ("upload-artifacts", "yes", "true, True, TRUE, false, False, FALSE"),
        ("artifact-name", "a/b", "'/'"),
    ],
)
def test_an_invalid_value_names_its_input(set_inputs: SetInputs, name: str, value: str, fragment: str) -> None:
    set_inputs(**{name.replace("-", "_"): value})
    with pytest.raises(ActionInputError) as info:
        ActionInputs.from_env()
    assert info.value.input == name
    assert fragment in info.value.message


def test_secret_inputs_never_echo_their_value_in_errors(set_inputs: SetInputs, tmp_path: Path) -> None:
    set_inputs(otlp_headers="no-equals-sign-secret-value", model="faux/scripted", prompt="x")
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert info.value.input == "otlp-headers"
    assert "no-equals-sign-secret-value" not in str(info.value)


def test_lists_split_on_lines_and_commas() -> None:
    assert split_list("a.py\n b.py, c.py\n\n") == ["a.py", "b.py", "c.py"]


def test_headers_are_url_decoded_like_otel_env_headers() -> None:
    assert parse_headers("Authorization=Bearer%20tok-123456,x-team=a%2Cb") == {
        "Authorization": "Bearer tok-123456",
        "x-team": "a,b",
    }


def test_secret_values_cover_keys_token_headers_and_runtime_token() -> None:
    env = {
        "INPUT_ANTHROPIC-API-KEY": "sk-ant-abcdef",
        "INPUT_OPENAI-API-KEY": "",
        "INPUT_GITHUB-TOKEN": "ghs_abcdef123",
        "INPUT_OTLP-HEADERS": "Authorization=Bearer%20tok-123456,x=1",
        "ACTIONS_RUNTIME_TOKEN": "eyJ.runtime.token",
    }
    found = secret_values(env)
    for value in ("sk-ant-abcdef", "ghs_abcdef123", "Bearer tok-123456", "tok-123456", "eyJ.runtime.token"):
        assert value in found
    assert "1" not in found, "too short to be masked as a secret: it would garble the log"


def test_inputs_override_config_fields_and_the_rest_is_kept(set_inputs: SetInputs, tmp_path: Path) -> None:
    (tmp_path / "cfg.json").write_text(
        json.dumps(
            {
                "engine": {"id": "aw", "model": "claude-sonnet-4.5"},
                "on": {"push": {}},
                "timeout-minutes": 30,
                "harness": {"budget": {"max-effective-tokens": 1000, "max-turns": 4}, "faux-script": "s.json"},
            }
        )
    )
    (tmp_path / "p.txt").write_text("task")
    set_inputs(config="cfg.json", prompt_file="p.txt", model="faux/scripted", max_turns="9", compaction="summarize",
               otlp_endpoint="http://127.0.0.1:4318", otlp_headers="k=v%20w", imports="a.md\nb.md")  # fmt: skip
    plan = build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    c = plan.config
    assert c.engine.model == "faux/scripted"
    assert c.harness.budget.max_turns == 9
    assert c.harness.budget.max_effective_tokens == 1000
    assert c.timeout_minutes == 30
    assert c.harness.context.compaction == "summarize"
    assert c.harness.faux_script == "s.json"
    assert c.observability.otlp.endpoint == "http://127.0.0.1:4318"
    assert c.observability.otlp.headers == {"k": "v w"}
    assert c.imports == ["a.md", "b.md"]
    assert plan.config_path == tmp_path / "cfg.json"
    assert plan.prompt_path == tmp_path / "p.txt"


def test_model_is_required_without_a_config(set_inputs: SetInputs, tmp_path: Path) -> None:
    set_inputs(prompt="do it")
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert info.value.input == "model"


def test_a_bad_config_file_is_reported_against_the_config_input(set_inputs: SetInputs, tmp_path: Path) -> None:
    (tmp_path / "cfg.json").write_text(json.dumps({"engine": {"model": "x"}, "harness": {"budgett": {}}}))
    set_inputs(config="cfg.json", prompt="x")
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert info.value.input == "config"
    assert "harness.budgett" in info.value.message


def test_a_near_miss_top_level_key_in_the_config_input_names_the_likely_key(
    set_inputs: SetInputs, tmp_path: Path
) -> None:
    (tmp_path / "cfg.json").write_text(json.dumps({"engine": {"model": "x"}, "timeout-minute": 5, "on": "push"}))
    set_inputs(config="cfg.json", prompt="x")
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert info.value.input == "config"
    assert (
        info.value.message == f"{tmp_path / 'cfg.json'}: unknown key 'timeout-minute'; did you mean 'timeout-minutes'?"
    )


def test_a_missing_config_file_is_reported(set_inputs: SetInputs, tmp_path: Path) -> None:
    set_inputs(config="nope.json", prompt="x")
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert (info.value.input, "not found" in info.value.message) == ("config", True)


@pytest.mark.parametrize(
    ("inputs", "name"),
    [
        ({}, "prompt"),
        ({"prompt": "a", "prompt_file": "p.txt"}, "prompt"),
        ({"prompt_file": "missing.txt"}, "prompt-file"),
    ],
)
def test_prompt_rules(set_inputs: SetInputs, tmp_path: Path, inputs: dict[str, str], name: str) -> None:
    (tmp_path / "p.txt").write_text("x")
    set_inputs(model="faux/scripted", **inputs)
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert info.value.input == name


def test_inline_prompt_goes_to_a_file_in_runner_temp(set_inputs: SetInputs, tmp_path: Path) -> None:
    (tmp_path / "rt").mkdir()
    set_inputs(model="faux/scripted", prompt="Review the PR.\nBe brief.")
    env = {"GITHUB_WORKSPACE": str(tmp_path), "RUNNER_TEMP": str(tmp_path / "rt")}
    plan = build_plan(ActionInputs.from_env(), env, tmp_path)
    assert plan.prompt_path.read_text() == "Review the PR.\nBe brief.\n"
    assert (tmp_path / "rt") in plan.prompt_path.parents
    assert plan.output_dir == tmp_path / "rt" / "aw-harness"


def test_harness_env_maps_keys_and_drops_inputs_and_runner_credentials(set_inputs: SetInputs, tmp_path: Path) -> None:
    set_inputs(model="faux/scripted", prompt="x", anthropic_api_key="sk-ant-1", github_token="ghs_2", output_dir="out")
    env = {
        "GITHUB_WORKSPACE": str(tmp_path),
        "INPUT_ANTHROPIC-API-KEY": "sk-ant-1",
        "ACTIONS_RUNTIME_TOKEN": "jwt",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc",
        "GITHUB_RUN_ID": "77",
    }
    plan = build_plan(ActionInputs.from_env(), env, tmp_path)
    assert plan.env["ANTHROPIC_API_KEY"] == "sk-ant-1"
    assert plan.env["GITHUB_TOKEN"] == "ghs_2"
    assert plan.env["GITHUB_RUN_ID"] == "77"
    assert plan.env["AW_OUTPUT_DIR"] == str(tmp_path / "out")
    assert not any(k.startswith("INPUT_") or k.startswith("ACTIONS_") for k in plan.env)


def test_an_output_dir_that_cannot_be_created_is_an_input_error(set_inputs: SetInputs, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    set_inputs(model="faux/scripted", prompt="x", output_dir="a-file/out")
    with pytest.raises(ActionInputError) as info:
        build_plan(ActionInputs.from_env(), {"GITHUB_WORKSPACE": str(tmp_path)}, tmp_path)
    assert info.value.input == "output-dir"
    assert "a-file/out" in info.value.message
