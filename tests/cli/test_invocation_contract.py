"""The invocation contract: exit codes 0/1/2, streams, one-line errors, prompt assembly."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import REPO, base_env, run_cli, write_run_files

FAUX = {"engine": {"id": "aw", "model": "faux/scripted"}}
DONE = [{"text": "all done"}]


def cfg(**harness: object) -> dict[str, object]:
    config: dict[str, object] = json.loads(json.dumps(FAUX))
    if harness:
        config["harness"] = harness
    return config


def transcript(run_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run_dir / "session.jsonl").read_text().splitlines()]


def assert_no_traceback(stderr: str) -> None:
    assert "Traceback" not in stderr


def test_clean_run_exits_0_with_one_result_object(tmp_path: Path) -> None:
    c, p = write_run_files(
        tmp_path,
        cfg(),
        script=[{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]}, {"text": "all done"}],
    )
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    result = run.result
    assert result["conclusion"] == "success" and result["stop_reason"] == "completed" and result["exit_code"] == 0
    assert result["turns"] == 2 and result["final_message"] == "all done"
    assert set(result["tokens"]) >= {"input", "output", "cache_read", "cache_write"}
    assert result["tokens"]["input"] > 0 and result["duration_ms"] >= 0
    assert str(run.output_dir / "session.jsonl") in result["files"]
    names = [e["event"] for e in run.events]
    assert names[0] == "session_start" and names[-1] == "session_end"
    assert all(isinstance(e["ts"], str) and e["ts"].endswith("Z") for e in run.events)
    assert run.events_named("session_start")[0]["model"] == "faux/scripted"


def test_python_dash_m_and_console_script_agree(tmp_path: Path) -> None:
    import shutil
    import subprocess

    c, p = write_run_files(tmp_path, cfg(), script=DONE)
    exe = shutil.which("aw-harness") or str(Path(__import__("sys").executable).parent / "aw-harness")
    proc = subprocess.run(
        [exe, "--config", str(c), "--prompt", str(p)],
        env=base_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["final_message"] == "all done"


def test_session_failure_exits_1(tmp_path: Path) -> None:
    c, p = write_run_files(tmp_path, cfg(), script=[{"error": {"message": "model exploded", "kind": "fatal"}}])
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 1
    assert run.result["stop_reason"] == "error" and run.result["conclusion"] == "failure"
    assert run.result["error"] == "model exploded"
    assert run.events_named("session_end")
    assert_no_traceback(run.stderr)


def test_invocation_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    env = base_env(tmp_path)
    good_cfg, good_prompt = write_run_files(tmp_path, cfg(), script=DONE)
    bad_json = tmp_path / "bad.json"
    bad_json.write_text("{not json")
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({**FAUX, "harness": {"budget": {"max-effective-tokenz": 5}}}))
    wrong_type = tmp_path / "wrong.json"
    wrong_type.write_text(json.dumps({**FAUX, "harness": {"budget": {"max-effective-tokens": "lots"}}}))
    no_model = tmp_path / "nomodel.json"
    no_model.write_text(json.dumps({"engine": {"id": "aw"}}))
    empty_prompt = tmp_path / "empty.txt"
    empty_prompt.write_text("  \n")
    unknown_model = tmp_path / "unknown.json"
    unknown_model.write_text(json.dumps({"engine": {"model": "sonet"}}))
    no_key = tmp_path / "nokey.json"
    no_key.write_text(json.dumps({"engine": {"model": "sonnet"}}))
    near_miss = tmp_path / "nearmiss.json"
    near_miss.write_text(json.dumps({**FAUX, "timeout-minute": 5}))
    harness_near_miss = tmp_path / "harnessnearmiss.json"
    harness_near_miss.write_text(json.dumps({**FAUX, "harness": {"budget": {"max-turn": 5}}}))
    no_script = tmp_path / "noscript.json"
    no_script.write_text(json.dumps(FAUX))
    cases = [
        (["--config", str(tmp_path / "missing.json"), "--prompt", str(good_prompt)], "config file not found"),
        (["--config", str(bad_json), "--prompt", str(good_prompt)], "is not valid JSON"),
        (["--config", str(typo), "--prompt", str(good_prompt)], "harness.budget.max-effective-tokenz: unknown key"),
        (["--config", str(wrong_type), "--prompt", str(good_prompt)], "harness.budget.max-effective-tokens:"),
        (["--config", str(no_model), "--prompt", str(good_prompt)], "engine.model: Field required"),
        (["--config", str(good_cfg), "--prompt", str(tmp_path / "nope.txt")], "prompt file not found"),
        (["--config", str(good_cfg), "--prompt", str(empty_prompt)], "prompt file is empty"),
        (["--config", str(unknown_model), "--prompt", str(good_prompt)], "did you mean: sonnet"),
        (["--config", str(no_key), "--prompt", str(good_prompt)], "ANTHROPIC_API_KEY"),
        (
            ["--config", str(near_miss), "--prompt", str(good_prompt)],
            "unknown key 'timeout-minute'; did you mean 'timeout-minutes'?",
        ),
        (
            ["--config", str(harness_near_miss), "--prompt", str(good_prompt)],
            "harness.budget.max-turn: unknown key (not a harness setting); did you mean 'max-turns'?",
        ),
        (["--config", str(no_script), "--prompt", str(good_prompt)], "plays a script of answers, and none is set"),
        (["--prompt", str(good_prompt)], "--config"),
    ]
    for args, expected in cases:
        run = run_cli(args, env)
        assert run.returncode == 2, (args, run.stderr)
        error_lines = [line for line in run.stderr.splitlines() if "error" in line and not line.startswith("{")]
        assert len(error_lines) == 1, (args, run.stderr)
        assert expected in error_lines[0], (expected, error_lines[0])
        assert_no_traceback(run.stderr)


def test_foreign_top_level_keys_are_ignored_and_overrides_warn(tmp_path: Path) -> None:
    config = {
        **FAUX,
        "on": {"schedule": [{"cron": "0 9 * * 1"}]},
        "permissions": {"contents": "read"},
        "roles": ["admin"],
        "network": {"allowed": ["defaults"]},
        "env": {"A": "b"},
        "timeout_minutes": 5,  # the field's own name validates too: no near miss
        "cli-proxy": False,
        "tools": {"github": {"mode": "remote", "toolsets": ["issues"]}},
    }
    c, p = write_run_files(tmp_path, config, script=DONE)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("aw-harness: warning:")]
    assert any("cli-proxy" in w for w in warnings)
    assert any("tools.github.mode: remote" in w and "gh-proxy" in w for w in warnings)


def test_imports_in_order_then_prompt_as_one_message_and_nothing_ambient(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "skills" / "reporting").mkdir(parents=True)
    (ws / "skills" / "reporting" / "SKILL.md").write_text("SKILL BODY")
    (ws / "AGENTS.md").write_text("AMBIENT AGENTS FILE")
    (ws / ".github" / "agents").mkdir(parents=True)
    (ws / ".github" / "agents" / "x.md").write_text("AMBIENT AGENT")
    config = {**FAUX, "imports": ["skills/reporting/SKILL.md", {"path": "shared/inline.md", "content": "INLINE BODY"}]}
    c, p = write_run_files(tmp_path, config, prompt="THE PROMPT", script=DONE)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    entries = transcript(run.output_dir)
    users = [e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "user"]
    assert len(users) == 1
    text = users[0]["content"][0]["text"]
    assert text.index("SKILL BODY") < text.index("INLINE BODY") < text.index("THE PROMPT")
    assert "AMBIENT" not in text


def test_missing_import_is_an_invocation_error(tmp_path: Path) -> None:
    c, p = write_run_files(tmp_path, {**FAUX, "imports": ["shared/missing.md"]}, script=DONE)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 2
    assert "imports[0]: shared/missing.md: not found" in run.stderr


def test_transcript_has_one_entry_per_message(tmp_path: Path) -> None:
    script = [{"tool_calls": [{"name": "write", "arguments": {"path": "f.txt", "content": "x"}}]}, {"text": "ok"}]
    c, p = write_run_files(tmp_path, cfg(), script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    entries = transcript(run.output_dir)
    assert entries[0]["type"] == "session"
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    assert (tmp_path / "ws" / "f.txt").read_text() == "x"


def test_secrets_in_env_never_reach_outputs(tmp_path: Path) -> None:
    secret = "sk-planted-SECRET-value-1234567890"
    script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": f"echo {secret}; env | grep -c PLANTED || true"}}]},
        {"text": f"the key is {secret}"},
    ]
    c, p = write_run_files(tmp_path, cfg(), script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path, PLANTED_API_KEY=secret))
    assert run.returncode == 0, run.stderr
    assert secret not in run.stdout and secret not in run.stderr
    for file in run.output_dir.rglob("*"):
        if file.is_file():
            assert secret not in file.read_text(errors="replace"), file


def test_agent_shell_never_sees_model_credentials(tmp_path: Path) -> None:
    script = [
        {"tool_calls": [{"name": "bash", "arguments": {"command": "env | grep -c _API_KEY || true"}}]},
        {"text": "ok"},
    ]
    c, p = write_run_files(tmp_path, cfg(), script=script)
    env = base_env(tmp_path, ANTHROPIC_API_KEY="sk-ant-test-000000", OPENAI_API_KEY="sk-oa-test-000000")
    run = run_cli(["--config", str(c), "--prompt", str(p)], env)
    assert run.returncode == 0, run.stderr
    results = [
        e["message"]
        for e in transcript(run.output_dir)
        if e["type"] == "message" and e["message"]["role"] == "toolResult"
    ]
    assert results[0]["content"][0]["text"].strip() == "0"


def test_long_command_output_saved_in_output_dir_is_redacted(tmp_path: Path) -> None:
    secret = "ghp_plantedTOKENvalue0123456789abcdef"
    command = 'for i in $(seq 1 3000); do echo "line $i $GITHUB_TOKEN"; done'
    script = [{"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "ok"}]
    config = {**cfg(), "tools": {"github": {"toolsets": ["repos"]}}}  # grants the tools GITHUB_TOKEN
    c, p = write_run_files(tmp_path, config, script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path, GITHUB_TOKEN=secret))
    assert run.returncode == 0, run.stderr
    logs = list(run.output_dir.glob("bash-*.log"))
    assert len(logs) == 1
    text = logs[0].read_text()
    assert text.count("line ") == 3000 and "***" in text
    for file in run.output_dir.rglob("*"):
        if file.is_file():
            assert secret not in file.read_text(errors="replace"), file


def test_settings_named_like_tokens_are_not_treated_as_secrets() -> None:
    from aw_action.run.redact import Redactor, secrets_from_env

    env = {
        "MAX_TOKENS": "100000",
        "INPUT_MAX-EFFECTIVE-TOKENS": "250000",
        "GH_AW_TOKEN_STEERING": "true",
        "GITHUB_TOKEN": "ghs_realtokenvalue123",
        "AWF_API_KEY_RETRIES": "123456",
    }
    redactor = Redactor(secrets_from_env(env))
    assert (
        redactor.text("used 100000 of 250000 tokens; retries 123456") == "used 100000 of 250000 tokens; retries 123456"
    )
    assert redactor.text("token ghs_realtokenvalue123") == "token ***"


def test_edit_accepts_the_legacy_argument_shapes_through_its_shim(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir(exist_ok=True)
    (tmp_path / "ws" / "f.txt").write_text("alpha\nbeta\n")
    edits_as_text = json.dumps([{"oldText": "alpha", "newText": "ALPHA"}])
    script = [
        {"tool_calls": [{"name": "edit", "arguments": {"path": "f.txt", "edits": edits_as_text}}]},
        {"tool_calls": [{"name": "edit", "arguments": {"path": "f.txt", "oldText": "beta", "newText": "BETA"}}]},
        {"text": "ok"},
    ]
    c, p = write_run_files(tmp_path, cfg(), script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "ws" / "f.txt").read_text() == "ALPHA\nBETA\n"


PRINTING_EXTENSION = """
import os, subprocess, sys

def setup(api):
    print("setup sees", api.env["MY_SERVICE_TOKEN"])

    def on_turn(event, ctx):
        sys.stdout.write("turn ended " + api.env["MY_SERVICE_TOKEN"] + "\\n")
        os.write(1, b"raw write\\n")
        subprocess.run(["sh", "-c", "echo child says $MY_SERVICE_TOKEN"], check=True)

    api.on("turn_end", on_turn)
"""


def test_stdout_carries_only_the_result_whatever_an_extension_prints(tmp_path: Path) -> None:
    """spec: one JSON object on stdout. An extension's print, a raw write to fd 1 and a child's
    output go to stderr as redacted diagnostics (security/stdout_guard); a child started without
    an explicit environment finds the credentials wiped (process_guard.wipe_initial_environ)."""
    secret = "step-env-secret-StdoutGuard-0123"
    (tmp_path / "ws").mkdir(exist_ok=True)
    (tmp_path / "ws" / "printer.py").write_text(PRINTING_EXTENSION)
    c, p = write_run_files(tmp_path, cfg(extensions=["./printer.py"]), script=DONE)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path, MY_SERVICE_TOKEN=secret))
    assert run.returncode == 0, run.stderr
    assert run.result["final_message"] == "all done"
    diagnostics = [line for line in run.stderr.splitlines() if line.startswith("aw-harness: stdout: ")]
    assert sorted(diagnostics) == sorted(
        f"aw-harness: stdout: {text}"
        # the child inherits the process's environment block, whose credentials were wiped
        for text in ("setup sees ***", "turn ended ***", "raw write", "child says")
    )
    assert secret not in run.stdout + run.stderr


def test_a_malformed_numeric_setting_in_the_env_is_an_invocation_error(tmp_path: Path) -> None:
    c, p = write_run_files(tmp_path, cfg(), script=DONE)
    for name, value in (("AW_RETRY_MAX_ATTEMPTS", "abc"), ("AW_PROVIDER_TIMEOUT_S", "-1"), ("AW_OTLP_TIMEOUT_S", "x")):
        run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path, **{name: value}))
        assert run.returncode == 2, (name, run.stderr)
        assert run.result["stop_reason"] == "invocation_error" and run.result["error"].startswith(f"{name}: expected")
        assert_no_traceback(run.stderr)


def test_imports_resolve_against_the_current_directory_without_a_workspace(tmp_path: Path) -> None:
    """As documented (and as the compiler writes them), imports are repository paths: from the
    repository root, the example's config finds its checklist without GITHUB_WORKSPACE."""
    env = base_env(tmp_path)
    del env["GITHUB_WORKSPACE"]
    config, prompt = REPO / "examples/pr-review/config.json", REPO / "examples/pr-review/prompt.txt"
    run = run_cli(["--config", str(config), "--prompt", str(prompt)], env, cwd=REPO)
    assert run.returncode == 2  # it stops at the missing API key, after the imports were read
    assert "no credentials for model anthropic/claude-sonnet-4-5" in run.result["error"]
    assert "not found" not in run.stderr


def test_imports_resolve_against_the_workspace_when_it_is_set(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "shared").mkdir(parents=True)
    (ws / "shared" / "notes.md").write_text("FROM THE WORKSPACE")
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "shared").mkdir(parents=True)
    (elsewhere / "shared" / "notes.md").write_text("FROM THE CURRENT DIRECTORY")
    c, p = write_run_files(tmp_path, {**FAUX, "imports": ["shared/notes.md"]}, script=DONE)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path), cwd=elsewhere)
    assert run.returncode == 0, run.stderr
    text = json.dumps(transcript(run.output_dir))
    assert "FROM THE WORKSPACE" in text and "FROM THE CURRENT DIRECTORY" not in text
