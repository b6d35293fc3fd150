"""The bash-policy built-in: config.json ``tools.bash`` (and ``tools.bash-variables``) decide which
commands the bash tool runs, through the real CLI with the scripted model and real subprocesses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import base_env, run_cli, write_run_files


def _bash(*commands: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": c}} for c in commands]}


def _run(
    tmp_path: Path, tools: dict[str, Any] | None, commands: list[str], **env: str
) -> tuple[int, list[dict[str, Any]]]:
    config: dict[str, Any] = {"engine": {"model": "faux/scripted"}}
    if tools is not None:
        config["tools"] = tools
    script = [_bash(*commands), {"text": "done"}]
    c, p = write_run_files(tmp_path, config, script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path, **env))
    if run.returncode == 2:
        return 2, [{"error": run.result["error"]}]
    lines = [json.loads(line) for line in (run.output_dir / "session.jsonl").read_text().splitlines()]
    results = [r["message"] for r in lines if r.get("type") == "message" and r["message"]["role"] == "toolResult"]
    return run.returncode, [{"error": r["is_error"], "text": r["content"][0]["text"]} for r in results]


def test_without_tools_bash_every_command_runs_as_before(tmp_path: Path) -> None:
    code, results = _run(tmp_path, None, ["echo one && echo two"])
    assert code == 0 and not results[0]["error"] and "one\ntwo" in results[0]["text"]


def test_a_list_allows_exactly_those_executables(tmp_path: Path) -> None:
    code, results = _run(
        tmp_path, {"bash": ["echo", "ls:*"]}, ["echo hello", "ls -d .", "cat /etc/hostname", "echo a; id"]
    )
    assert code == 0
    assert [r["error"] for r in results] == [False, False, True, True]
    assert "hello" in results[0]["text"]
    assert "'cat' is not an allowed executable (allowed: echo, ls)" in results[2]["text"]
    assert results[3]["text"].startswith("bash command refused by config.json tools.bash: shell operator ';'")


def test_named_variables_are_usable_in_double_quotes_and_others_are_not(tmp_path: Path) -> None:
    tools = {"bash": ["echo"], "bash-variables": ["ISSUE_NUMBER"]}
    code, results = _run(tmp_path, tools, ['echo "issue $ISSUE_NUMBER"', 'echo "$HOME"'], ISSUE_NUMBER="17")
    assert code == 0
    assert not results[0]["error"] and "issue 17" in results[0]["text"]
    assert results[1]["error"] and "(allowed: ISSUE_NUMBER)" in results[1]["text"]


@pytest.mark.parametrize(
    ("tools", "problem"),
    [
        ({"bash": ["echo ok && id"]}, "config.json tools.bash: tools.bash entry 'echo ok && id'"),
        ({"bash": ["echo"], "bash-variables": ["GITHUB_TOKEN"]}, "GITHUB_TOKEN holds a credential"),
        ({"bash": ["echo"], "bash-variables": ["NOT-A-NAME"]}, "'NOT-A-NAME' is not a variable name"),
    ],
)
def test_a_malformed_setting_is_an_invocation_error(tmp_path: Path, tools: dict[str, Any], problem: str) -> None:
    code, results = _run(tmp_path, tools, ["echo hi"])
    assert code == 2 and problem in results[0]["error"]


def test_false_refuses_every_command_and_true_allows_any(tmp_path: Path) -> None:
    (tmp_path / "deny").mkdir()
    code, results = _run(tmp_path / "deny", {"bash": False}, ["echo hi"])
    assert code == 0 and results[0]["error"] and "mode: deny" in results[0]["text"]
    (tmp_path / "any").mkdir()
    code, results = _run(tmp_path / "any", {"bash": True}, ["echo a | tr a b"])
    assert code == 0 and not results[0]["error"] and "b" in results[0]["text"]
