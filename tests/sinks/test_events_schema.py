"""The stderr JSONL stream: every line a run writes is a valid event, a turn line or a diagnostic."""

from __future__ import annotations

from pathlib import Path

from aw_action.run import human as units
from tests.sinks.support import (
    BUDGET_SCRIPT,
    HUMAN_LINE,
    TOOL_SCRIPT,
    event_validator,
    scripted_run,
    split_stderr,
)


def _assert_all_valid(stderr: str) -> list[dict[str, object]]:
    events, _, _ = split_stderr(stderr)
    validator = event_validator()
    for event in events:
        errors = sorted(validator.iter_errors(event), key=str)
        assert not errors, f"{event}: {[e.message for e in errors]}"
    return events


def test_every_line_of_a_tool_run_validates_against_the_event_schema(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    assert run.returncode == 0, run.stderr
    events = _assert_all_valid(run.stderr)
    names = [e["event"] for e in events]
    for expected in (
        "session_start",
        "agent_start",
        "turn_start",
        "request_end",
        "tool_start",
        "tool_end",
        "turn_end",
        "agent_end",
        "session_end",
    ):
        assert expected in names, expected
    assert names[0] == "session_start" and names[-1] == "session_end"
    assert names.count("turn_end") == 3 and names.count("request_end") == 3 and names.count("tool_end") == 2
    assert [e["is_error"] for e in events if e["event"] == "tool_end"] == [False, True]


def test_budget_run_events_validate_including_steering_and_budget_exceeded(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-effective-tokens": 4000}}})
    assert run.returncode == 1, run.stderr
    events = _assert_all_valid(run.stderr)
    names = [e["event"] for e in events]
    assert "steering" in names and "budget_exceeded" in names
    exceeded = next(e for e in events if e["event"] == "budget_exceeded")
    assert exceeded["reason"] == "hard_limit" and exceeded["forced_termination"] is True
    assert names[-1] == "session_end"


def test_turn_end_carries_the_spec_fields_and_the_human_line_agrees(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    events, human, _ = split_stderr(run.stderr)
    turn_ends = [e for e in events if e["event"] == "turn_end"]
    assert len(human) == len(turn_ends) == 3
    cumulative = 0
    for event, line in zip(turn_ends, human, strict=True):
        assert {
            "turn",
            "input_tokens",
            "output_tokens",
            "cumulative_tokens",
            "cumulative_cost_usd",
            "model",
            "ts",
        } <= set(event)
        assert event["model"] == "faux/scripted"
        cumulative += event["input_tokens"] + event["output_tokens"]
        assert event["cumulative_tokens"] == cumulative
        match = HUMAN_LINE.match(line)
        assert match is not None
        turn, tokens_in, tokens_out, effective, total, total_effective, limit, cost = match.groups()
        assert int(turn) == event["turn"]
        assert int(tokens_in.replace(",", "")) == event["input_tokens"]
        assert int(tokens_out.replace(",", "")) == event["output_tokens"]
        assert int(total.replace(",", "")) == event["cumulative_tokens"]
        assert int(total_effective.replace(",", "")) == round(event["cumulative_effective_tokens"])
        assert int(effective.replace(",", "")) > 0 and limit is None  # no effective-token budget set
        assert cost == units.usd(event["cumulative_cost_usd"])
    assert [line.split(" | ", 1)[0] for line in human] == [
        "Turn 1: bash",
        "Turn 2: bash (1 failed)",
        "Turn 3: no tool call",
    ]
    # cache tokens count as input, reasoning as output (turn 1: 1000 + 400 + 100 in, 50 out)
    assert (turn_ends[0]["input_tokens"], turn_ends[0]["output_tokens"]) == (1500, 50)
    assert (turn_ends[1]["input_tokens"], turn_ends[1]["output_tokens"]) == (1600, 80)


def test_schema_rejects_malformed_known_events_and_accepts_unknown_names() -> None:
    validator = event_validator()
    ts = "2026-05-02T10:30:00.000Z"
    good = {
        "event": "turn_end",
        "turn": 3,
        "input_tokens": 4200,
        "output_tokens": 850,
        "cumulative_tokens": 15320,
        "cumulative_cost_usd": 0.0412,
        "model": "claude-sonnet-4.6",
        "ts": ts,
    }
    assert validator.is_valid(good)
    assert not validator.is_valid({k: v for k, v in good.items() if k != "cumulative_cost_usd"})
    assert not validator.is_valid({**good, "ts": "yesterday"})
    assert not validator.is_valid({**good, "input_tokens": -1})
    assert not validator.is_valid(
        {"event": "budget_exceeded", "reason": "soft", "forced_termination": True, "used": 1.0, "limit": 1.0, "ts": ts}
    )
    assert not validator.is_valid({"event": "message_end", "role": "assistant", "text": "leak", "ts": ts})
    assert validator.is_valid({"event": "my_extension_record", "anything": [1, 2], "ts": ts})
    assert not validator.is_valid({"event": "my_extension_record"})
