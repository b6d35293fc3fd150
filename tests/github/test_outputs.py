"""GITHUB_OUTPUT: heredoc entries the runner parses back to exactly the value written."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.github.outputs import (
    APPLY_OUTPUT_NAMES,
    OUTPUT_NAMES,
    REPLAY_OUTPUT_NAMES,
    heredoc_entry,
    result_outputs,
    write_outputs,
)
from tests.github.runner_sim import parse_file_command

TRICKY = [
    "",
    "plain",
    "two\nlines",
    "ends with newline\n",
    "conclusion=success\nexit-code<<EOF\n0\nEOF",
    "ghadelimiter_not-the-real-one\n",
    "windows\r\nline",
]


@pytest.mark.parametrize("value", TRICKY)
def test_value_round_trips_through_the_runner_parser(value: str, tmp_path: Path) -> None:
    out = tmp_path / "output"
    out.write_text("")
    write_outputs(out, {"final-message": value, "exit-code": "0"})
    assert parse_file_command(out.read_bytes().decode("utf-8")) == {"final-message": value, "exit-code": "0"}


def test_forged_output_lines_in_a_value_do_not_create_outputs(tmp_path: Path) -> None:
    out = tmp_path / "output"
    write_outputs(out, {"final-message": "conclusion=success\nartifact-id=1"})
    assert set(parse_file_command(out.read_text())) == {"final-message"}


def test_each_entry_uses_a_fresh_delimiter() -> None:
    a, b = heredoc_entry("x", "1"), heredoc_entry("x", "1")
    assert a.split("\n")[0] != b.split("\n")[0]


def test_bad_output_names_are_refused() -> None:
    with pytest.raises(ValueError):
        heredoc_entry("a=b", "v")


def test_no_output_file_means_nothing_is_written() -> None:
    assert write_outputs(None, {"a": "b"}) is False


def test_result_outputs_cover_every_run_output_but_artifact_id() -> None:
    result = {
        "conclusion": "success",
        "stop_reason": "completed",
        "exit_code": 0,
        "turns": 3,
        "tokens": {"input": 100, "cache_read": 50, "cache_write": 5, "output": 20, "reasoning": 7, "effective": 312.5},
        "cost_usd": 0.0123456789,
        "ai_credits": 1.23456789,
        "final_message": "done",
    }
    outputs = result_outputs(result, "out/session.jsonl")
    assert set(outputs) == set(OUTPUT_NAMES) - {"artifact-id", *APPLY_OUTPUT_NAMES, *REPLAY_OUTPUT_NAMES}
    assert outputs["input-tokens"] == "155"
    assert outputs["output-tokens"] == "27"
    assert outputs["effective-tokens"] == "312.5"
    assert outputs["cost-usd"] == "0.012346"
    assert outputs["ai-credits"] == "1.2346"


def test_unknown_cost_is_an_empty_output() -> None:
    outputs = result_outputs({"cost_usd": None, "ai_credits": None, "tokens": {}})
    assert outputs["cost-usd"] == "" and outputs["ai-credits"] == ""


def test_a_huge_final_message_is_cut_to_keep_outputs_under_githubs_cap() -> None:
    from aw_action.github.outputs import FINAL_MESSAGE_MAX_CHARS, result_outputs

    out = result_outputs({"final_message": "x" * (FINAL_MESSAGE_MAX_CHARS + 10)})["final-message"]
    assert out.startswith("x" * FINAL_MESSAGE_MAX_CHARS) and out.endswith("see session-file]")
    assert len(out) < FINAL_MESSAGE_MAX_CHARS + 200
    assert result_outputs({"final_message": "short"})["final-message"] == "short"


def test_structured_output_is_the_validated_value_only() -> None:
    value = {"verdict": "bug", "notes": "line\nbreak ✓"}
    ok = result_outputs({"exit_code": 0, "structured_output": value})["structured-output"]
    assert ok == '{"verdict": "bug", "notes": "line\\nbreak ✓"}'
    assert result_outputs({"exit_code": 0, "structured_output": None})["structured-output"] == "null"
    assert result_outputs({"exit_code": 1, "structured_output": None})["structured-output"] == ""
    assert result_outputs({"exit_code": 0})["structured-output"] == "", "no schema: no structured output"


def test_a_structured_output_too_large_for_an_output_is_left_to_the_file() -> None:
    from aw_action.github.outputs import STRUCTURED_OUTPUT_MAX_CHARS

    big = {"x": "y" * STRUCTURED_OUTPUT_MAX_CHARS}
    assert result_outputs({"exit_code": 0, "structured_output": big})["structured-output"] == ""
