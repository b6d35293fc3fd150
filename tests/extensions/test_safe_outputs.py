"""The safe-outputs built-in in a full run (the real CLI, scripted model): the configured kinds are
the agent's tools, ``aw-harness safe-output`` from its bash writes to the same file under the same
limits, the records are run files and the step summary lists them; a bad ``safe-outputs:`` is an
invocation error naming the field; in gh-aw mode nothing is offered and the config is gh-aw's."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from aw_action.safe_outputs import CONFIG_FILE, RECORDS_FILE
from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.safe_outputs.support import records

SAFE_OUTPUTS = {
    "create-issue": {"title-prefix": "[triage] ", "labels": ["automated"], "max": 1},
    "add-labels": {"allowed": ["bug", "needs-info"], "max": 2},
}
PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"


def bash(command: str) -> dict[str, Any]:
    return {"name": "bash", "arguments": {"command": command, "timeout": 60}}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def run(tmp: Path, script: list[dict[str, Any]], safe_outputs: Any = SAFE_OUTPUTS, **env: str) -> CliRun:
    config = {"engine": {"id": "aw", "model": "faux/scripted"}, "safe-outputs": safe_outputs}
    c, p = write_run_files(tmp, config, "Triage issue 7.", script=script)
    environ = base_env(tmp, PATH=PATH, GITHUB_STEP_SUMMARY=str(tmp / "summary.md"), **env)
    return run_cli(["--config", str(c), "--prompt", str(p)], environ, timeout=120)


def tool_results(out: Path) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in (out / "session.jsonl").read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "toolResult"]


def result_text(message: dict[str, Any]) -> str:
    return "".join(part.get("text", "") for part in message["content"])


def test_a_run_proposes_an_issue_and_a_label_through_tools_and_bash(tmp_path: Path) -> None:
    script = [
        {"tool_calls": [call("create_issue", title="Crash on start", body="Steps: run it.")]},
        {"tool_calls": [call("add_labels", labels=["bug"])]},
        {"tool_calls": [bash("aw-harness safe-output add-labels --labels needs-info")]},
        {"tool_calls": [bash("aw-harness safe-output add-labels --labels bug")]},  # over max: refused
        {"tool_calls": [call("add_labels", labels=["wontfix"])]},  # not allowed: refused
        {"tool_calls": [call("add_comment", body="hi")]},  # not configured: no such tool
        {"text": "Proposed an issue and two labels."},
    ]
    done = run(tmp_path, script)
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.output_dir
    assert [(r["type"], r.get("title"), r.get("labels")) for r in records(out)] == [
        ("create_issue", "Crash on start", None),
        ("add_labels", None, ["bug"]),
        ("add_labels", None, ["needs-info"]),
    ]
    results = tool_results(out)
    assert [r["is_error"] for r in results] == [False, False, False, True, True, True]
    assert "limit reached: 2 of 2 add_labels" in result_text(results[3])
    assert "label 'wontfix' is not allowed" in result_text(results[4])
    assert "add_comment" in result_text(results[5]) and "not found" in result_text(results[5]).lower()
    files = done.result["files"]
    assert str(out / RECORDS_FILE) in files and str(out / CONFIG_FILE) in files
    assert json.loads((out / CONFIG_FILE).read_text())["safe-outputs"]["create-issue"]["title-prefix"] == "[triage] "
    summary = (tmp_path / "summary.md").read_text()
    section = summary[summary.index("### Safe Outputs Proposed") :]
    assert "| 1 | `create_issue` |  | `Crash on start` |" in section, "the agent's words as code"
    assert "| 3 | `add_labels` |  | `needs-info` |" in section and "wontfix" not in section


def test_a_pull_request_patch_is_a_run_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = {"GIT_AUTHOR_NAME": "d", "GIT_AUTHOR_EMAIL": "d@x", "GIT_COMMITTER_NAME": "d", "GIT_COMMITTER_EMAIL": "d@x"}
    init = "git init -q -b main && git add -A && git commit -q --allow-empty -m init && echo new > NEW.md"
    script = [
        {"tool_calls": [bash(init)]},
        {"tool_calls": [call("create_pull_request", title="Add NEW.md", body="A new file.")]},
        {"text": "Proposed a pull request."},
    ]
    done = run(tmp_path, script, {"create-pull-request": None}, **env)
    assert done.returncode == 0, done.stderr[-3000:]
    [record] = records(done.output_dir)
    patch = done.output_dir / record["patch_path"]
    assert "NEW.md" in patch.read_text() and str(patch) in done.result["files"]


def test_a_bad_safe_outputs_value_is_an_invocation_error_naming_the_field(tmp_path: Path) -> None:
    done = run(tmp_path, [{"text": "never"}], {"create-issue": {"max": 500}})
    assert done.returncode == 2
    assert "safe-outputs.create-issue.max: Input should be less than or equal to 100" in done.result["error"]
    assert not (tmp_path / "out" / "session.jsonl").exists()
    unknown = run(tmp_path, [{"text": "never"}], {"upload-asset": {}})
    assert unknown.returncode == 2 and "safe-outputs.upload-asset: not supported" in unknown.result["error"]


def test_in_gh_aw_mode_no_tool_is_offered_and_the_config_is_gh_aws(tmp_path: Path) -> None:
    script = [
        {"tool_calls": [call("create_issue", title="t", body="b")]},
        {"tool_calls": [bash("aw-harness safe-output create-issue --title t --body b; echo exit=$?")]},
        {"text": "done"},
    ]
    gh_aw_config = {**SAFE_OUTPUTS, "create-discussion": {"max": 1}, "threat-detection": True}
    done = run(tmp_path, script, gh_aw_config, GITHUB_AW="true")
    assert done.returncode == 0, done.stderr[-3000:]
    results = tool_results(done.output_dir)
    assert results[0]["is_error"] and "not found" in result_text(results[0]).lower()
    assert "use the safeoutputs command" in result_text(results[1]) and "exit=2" in result_text(results[1])
    assert records(done.output_dir) == [] and not (done.output_dir / CONFIG_FILE).exists()
    assert "Safe Outputs" not in (tmp_path / "summary.md").read_text()


def test_without_safe_outputs_there_are_no_tools_and_no_section(tmp_path: Path) -> None:
    done = run(tmp_path, [{"tool_calls": [call("noop", message="x")]}, {"text": "ok"}], {})
    assert done.returncode == 0
    assert tool_results(done.output_dir)[0]["is_error"]
    assert not (done.output_dir / CONFIG_FILE).exists() and "Safe Outputs" not in (tmp_path / "summary.md").read_text()
