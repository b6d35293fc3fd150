"""In gh-aw mode the stderr stream carries what gh-aw's log parser needs, bounded; standalone it does not.

The fields (``sinks/jsonl_records.py``): ``tool_start.input`` (scalar arguments, capped; a write's
or edit's text never), ``tool_end.output`` (the head of the result) with ``output_chars``, and an
assistant ``message_end.text`` with ``text_chars``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aw_action.ai.types import AssistantMessage, TextContent, ToolCall
from aw_action.sinks import jsonl_records as records
from tests.conftest import REPO, base_env, run_cli
from tests.sinks.support import event_validator

DEMO_SCRIPT = str(REPO / "examples" / "demo" / "script.json")


def test_tool_input_shows_the_command_and_path_never_the_bulk_text() -> None:
    shown = records.tool_input({"path": "a.md", "content": "x" * 10_000, "old_text": "a", "new_text": "b"})
    assert shown == {"path": "a.md"}
    long = records.tool_input({"command": "y" * 5_000, "timeout": 30, "env": {"A": "1"}})
    assert long["command"] == "y" * records.GH_AW_INPUT_CHARS + "…" and long["timeout"] == 30
    assert long["env"] == '{"A": "1"}'
    many = records.tool_input({f"k{i}": i for i in range(20)})
    assert list(many) == [f"k{i}" for i in range(records.GH_AW_INPUT_KEYS)]


def test_tool_output_and_message_text_are_capped_with_their_length() -> None:
    assert records.tool_output("z" * 900) == {"output": "z" * records.GH_AW_OUTPUT_CHARS + "…", "output_chars": 900}
    text = "w" * 3_000
    message = AssistantMessage(
        content=[TextContent(text=text), ToolCall(id="t1", name="bash", arguments={})], stop_reason="toolUse"
    )
    with_text = records.message(message, True, with_text=True)
    assert with_text["text"] == "w" * records.GH_AW_TEXT_CHARS + "…" and with_text["text_chars"] == 3_000
    assert "text" not in records.message(message, True), "standalone: role and shape only"


def events(stderr: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def run_demo(tmp: Path, **env: str) -> list[dict[str, Any]]:
    tmp.mkdir(parents=True)
    demo = REPO / "examples" / "demo"
    run_env = base_env(tmp, AW_FAUX_SCRIPT=DEMO_SCRIPT, **env)
    run = run_cli(["--config", str(demo / "config.json"), "--prompt", str(demo / "prompt.txt")], run_env)
    assert run.returncode == 0, run.stderr[-3000:]
    found = events(run.stderr)
    validator = event_validator()
    for event in found:
        assert not list(validator.iter_errors(event)), event
    return found


def test_gh_aw_mode_adds_the_fields_and_standalone_runs_do_not(tmp_path: Path) -> None:
    gh_aw = run_demo(tmp_path / "gh-aw", GITHUB_AW="true")
    starts = [e for e in gh_aw if e["event"] == "tool_start"]
    assert [s["tool"] for s in starts] == ["bash", "write"]
    assert starts[0]["input"] == {"command": "ls -a | head -20", "timeout": 30}
    assert starts[1]["input"] == {"path": "aw-demo-report.md"}, "the report's text stays out"
    ends = [e for e in gh_aw if e["event"] == "tool_end"]
    assert all(e["output_chars"] >= len(e["output"].rstrip("…")) for e in ends)
    answers = [e for e in gh_aw if e["event"] == "message_end" and e["role"] == "assistant"]
    assert answers[0]["text"] == "I'll look at the workspace first."
    standalone = run_demo(tmp_path / "standalone")
    for event in standalone:
        assert not {"input", "output", "output_chars", "text", "text_chars"} & set(event), event
