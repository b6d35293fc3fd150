"""``aw-harness gh-aw`` as a subprocess: inputs from gh-aw's environment, errors named, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO, run_cli
from tests.conftest import base_env as plain_env

DEMO_SCRIPT = str(REPO / "examples" / "demo" / "script.json")
"""The scripted provider plays no script unless one is named: the demo's (tool calls, then done)."""


def base_env(tmp: Path, **extra: str) -> dict[str, str]:
    return plain_env(tmp, AW_FAUX_SCRIPT=DEMO_SCRIPT, **extra)


def env_for(tmp: Path, **extra: str) -> dict[str, str]:
    prompt = tmp / "prompt.txt"
    prompt.write_text("List the files, then stop.")
    return base_env(tmp, GH_AW_PROMPT=str(prompt), AW_HARNESS_MODEL="faux/scripted", **extra)


def test_a_run_from_gh_aws_environment(tmp_path: Path) -> None:
    run = run_cli(["gh-aw", "--", "ignored: GH_AW_PROMPT wins"], env_for(tmp_path, GH_AW_MAX_TURNS="5"))
    assert run.returncode == 0, run.stderr
    assert run.result["model"] == "faux/scripted" and run.result["conclusion"] == "success"
    transcript = (run.output_dir / "session.jsonl").read_text()
    assert "List the files, then stop." in transcript and "ignored: GH_AW_PROMPT wins" not in transcript


def test_the_prompt_argument_is_used_without_gh_aw_prompt(tmp_path: Path) -> None:
    env = base_env(tmp_path, AW_HARNESS_MODEL="faux/scripted")
    run = run_cli(["gh-aw", "--", "--not-an-option: list the files"], env)
    assert run.returncode == 0, run.stderr
    transcript = (run.output_dir / "session.jsonl").read_text()
    assert "--not-an-option: list the files" in transcript


def test_a_missing_prompt_file_is_exit_2_naming_it(tmp_path: Path) -> None:
    env = base_env(tmp_path, GH_AW_PROMPT=str(tmp_path / "nope.txt"), AW_HARNESS_MODEL="faux/scripted")
    run = run_cli(["gh-aw"], env)
    assert run.returncode == 2
    assert run.result["stop_reason"] == "invocation_error" and "nope.txt" in run.result["error"]


def test_no_model_is_exit_2_naming_the_variable(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    del env["AW_HARNESS_MODEL"]
    run = run_cli(["gh-aw"], env)
    assert run.returncode == 2 and "AW_HARNESS_MODEL" in run.result["error"]
    assert "aw-harness: error: no model" in run.stderr


def test_a_config_file_supplies_settings_and_is_checked(tmp_path: Path) -> None:
    config = tmp_path / "harness.json"
    config.write_text(json.dumps({"engine": {"model": "faux/scripted"}, "harness": {"budget": {"max-turns": 1}}}))
    env = env_for(tmp_path, AW_HARNESS_CONFIG=str(config))
    del env["AW_HARNESS_MODEL"]
    run = run_cli(["gh-aw"], env)
    assert run.returncode == 1 and run.result["stop_reason"] == "max_turns", run.stderr[-2000:]
    config.write_text("[1, 2]")
    run = run_cli(["gh-aw"], env)
    assert run.returncode == 2 and "harness.json: expected a JSON object" in run.result["error"]
    config.write_text(json.dumps({"engine": {"model": "faux/scripted"}, "harness": {"budgte": {}}}))
    run = run_cli(["gh-aw"], env)
    assert run.returncode == 2 and "harness.budgte" in run.result["error"]


def test_a_malformed_limit_is_exit_2_with_a_record(tmp_path: Path) -> None:
    run = run_cli(["gh-aw"], env_for(tmp_path, GH_AW_MAX_AI_CREDITS="lots"))
    assert run.returncode == 2
    assert run.result["error"] == "GH_AW_MAX_AI_CREDITS: not a number: 'lots'"
    [error] = run.events_named("error")
    assert error["stop_reason"] == "invocation_error"


def test_a_prompt_argument_with_undecodable_bytes_still_runs(tmp_path: Path) -> None:
    env = base_env(tmp_path, AW_HARNESS_MODEL="faux/scripted")
    run = run_cli(["gh-aw", "--", "list the files \udcff\udcfe"], env)  # bytes 0xff 0xfe on the command line
    assert run.returncode == 0, run.stderr[-2000:]


def test_the_subcommand_always_runs_in_gh_aw_mode(tmp_path: Path) -> None:
    run = run_cli(["gh-aw"], env_for(tmp_path, GH_AW_PHASE="agent"))  # no GITHUB_AW in the environment
    assert run.returncode == 0, run.stderr[-2000:]
    assert (run.output_dir / "agent-session.jsonl").exists()
    assert not (run.output_dir / "token-usage.jsonl").exists() and not (run.output_dir / "aw_session.jsonl").exists()
    assert run.events_named("session_start")[0]["phase"] == "agent"


def test_gh_aw_max_tool_calls_and_turns_reach_the_run(tmp_path: Path) -> None:
    run = run_cli(["gh-aw"], env_for(tmp_path, GH_AW_MAX_TOOL_CALLS="1", GH_AW_MAX_TURNS="7"))
    records = [json.loads(line) for line in (run.output_dir / "agent-session.jsonl").read_text().splitlines()]
    limits = records[-1]["data"]["limits"]
    assert (limits["tool_calls"], limits["turns"]) == (1, 7), run.stderr[-2000:]


def test_standalone_config_gets_the_provider_gh_aw_llm_provider_names(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"engine": {"model": "gpt-5"}}))
    prompt = tmp_path / "prompt.txt"
    prompt.write_text("Hello.")
    run = run_cli(["--config", str(config), "--prompt", str(prompt)], base_env(tmp_path, GH_AW_LLM_PROVIDER="github"))
    assert run.returncode == 2 and run.result["model"] == "copilot/gpt-5", "qualified when config.json was loaded"
    assert "COPILOT_GITHUB_TOKEN" in run.result["error"]
