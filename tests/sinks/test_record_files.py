"""token-usage.jsonl, aw_session.jsonl and context-provenance.jsonl from real runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from tests.sinks.support import BUDGET_SCRIPT, TOOL_SCRIPT, jsonl, scripted_run, split_stderr

REFERENCE = Path(__file__).resolve().parents[1] / "audit" / "data" / "gh-aw"

AWF_FIELDS = [
    "timestamp",
    "request_id",
    "provider",
    "model",
    "purpose",
    "status",
    "streaming",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "input_tokens_include_cache",
    "duration_ms",
    "effective_tokens",
    "cost_usd",
]


def _unified_schema() -> dict[str, Any]:
    """gh-aw's schema plus the newer ``steering``/``purpose`` fields of UsageReportData (seed 003's
    plan; the copied schema predates them and forbids unknown keys)."""
    schema: dict[str, Any] = json.loads((REFERENCE / "unified-session.schema.json").read_text())
    usage = schema["definitions"]["UsageReportData"]["properties"]
    usage["purpose"] = {"type": "string"}
    usage["steering"] = {
        "type": "object",
        "additionalProperties": False,
        "required": ["type", "threshold"],
        "properties": {"type": {"enum": ["ai_credit", "token", "timeout"]}, "threshold": {"type": "number"}},
    }
    return schema


def test_token_usage_has_one_awf_shaped_record_per_request(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    rows = jsonl(run.output_dir / "token-usage.jsonl")
    requests = run.events_named("request_end")
    assert len(rows) == len(requests) == 3
    for row, event in zip(rows, requests, strict=True):
        assert list(row)[:2] == ["_schema", "timestamp"]
        assert set(AWF_FIELDS) <= set(row)
        assert row["request_id"] == event["request_id"]
        assert row["event"] == "token_usage" and row["status"] == 200 and row["purpose"] == "agent"
        assert row["input_tokens_include_cache"] is False and "steering" not in row
        assert (row["provider"], row["harness_provider"]) == ("unknown", "faux"), "AWF's list has no faux"
        assert row["cost_usd"] == row["ai_credits_this_response"] == row["ai_credits_total"] == 0, "faux is free"
    assert (rows[0]["cache_read_tokens"], rows[0]["cache_write_tokens"], rows[1]["reasoning_tokens"]) == (400, 100, 20)
    assert [r["output_tokens"] for r in rows] == [50, 60 + 20, 70], "AWF's output_tokens include reasoning"
    # effective tokens, gh-aw weights: 1000 + 0.1*400 + 4*50 + 1*100
    assert rows[0]["effective_tokens"] == 1340
    awf = json.loads((REFERENCE / "awf-token-usage.schema.json").read_text())
    for row in rows:
        jsonschema.Draft202012Validator(awf).validate(row)


def test_steering_is_recorded_only_on_the_request_that_carried_the_notice(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-effective-tokens": 4000}}})
    rows = jsonl(run.output_dir / "token-usage.jsonl")
    carried = [r for r in rows if "steering" in r]
    notices = run.events_named("steering")
    assert len(carried) == len(notices) == 1
    assert carried[0]["request_id"] == notices[0]["request_id"]
    assert carried[0]["steering"] == {"type": notices[0]["type"], "threshold": notices[0]["threshold"]}
    usage = [r for r in jsonl(run.output_dir / "aw_session.jsonl") if r["type"] == "usage.report"]
    assert [r["data"].get("steering") for r in usage] == [r.get("steering") for r in rows]


def test_unified_session_is_valid_framed_and_holds_no_text(tmp_path: Path) -> None:
    secret_prompt = "Summarise the QUARTERLY-PLAN-7731 document."
    run = scripted_run(tmp_path, TOOL_SCRIPT, prompt=secret_prompt)
    path = run.output_dir / "aw_session.jsonl"
    text = path.read_text()
    lines = text.splitlines()
    assert text.endswith("\n") and all(lines)
    assert json.loads(lines[0]) == {
        "type": "session.format",
        "data": {"version": 1},
        "provenance": {"component": "collector", "phase": "conclusion", "path": "usage/aw_session.jsonl", "index": 0},
    }
    records = [json.loads(line) for line in lines]
    jsonschema.Draft7Validator(_unified_schema()).validate(records)
    timed = [r["provenance"]["timestampMs"] for r in records if "timestampMs" in r["provenance"]]
    assert timed == sorted(timed)
    types = [r["type"] for r in records]
    assert types.count("usage.report") == 3 and types.count("tool.execution_complete") == 2
    assert types[-1] == "session.collection" and "session.result" in types
    result = next(r for r in records if r["type"] == "session.result")["data"]
    assert result["numTurns"] == 3 and result["usage"]["totalTokens"] == run.result["tokens"]["total"]
    for needle in ("QUARTERLY-PLAN-7731", "All done.", "echo one"):
        assert needle not in text


def test_provenance_records_each_entry_in_order_without_text(tmp_path: Path) -> None:
    imports = [
        {"path": "skills/report/SKILL.md", "content": "SKILL-BODY-" + "x" * 400},
        {"path": "shared/checklist.md", "content": "CHECKLIST-BODY-" + "y" * 80},
    ]
    run = scripted_run(tmp_path, TOOL_SCRIPT, {"imports": imports}, prompt="PROMPT-BODY-" + "z" * 40)
    assert run.returncode == 0, run.stderr
    path = run.output_dir / "context-provenance.jsonl"
    records = jsonl(path)
    assert [(r["source"], r.get("path")) for r in records] == [
        ("import", "skills/report/SKILL.md"),
        ("import", "shared/checklist.md"),
        ("prompt", None),
    ]
    running = 0
    for record in records:
        assert set(record) <= {"timestamp", "source", "path", "tokens", "cumulative_tokens", "role"}
        assert record["role"] == "user" and record["tokens"] > 0
        running += record["tokens"]
        assert record["cumulative_tokens"] == running
    assert records[0]["tokens"] > records[1]["tokens"]
    for needle in ("SKILL-BODY", "CHECKLIST-BODY", "PROMPT-BODY"):
        assert needle not in path.read_text()


def test_record_files_are_listed_in_the_result(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    files = set(run.result["files"])
    for name in ("token-usage.jsonl", "aw_session.jsonl", "context-provenance.jsonl", "session.jsonl"):
        assert str(run.output_dir / name) in files


def test_a_budget_abort_keeps_completed_records_valid(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, BUDGET_SCRIPT, {"harness": {"budget": {"max-effective-tokens": 4000}}})
    assert run.returncode == 1
    events, _, _ = split_stderr(run.stderr)
    records = [json.loads(line) for line in (run.output_dir / "aw_session.jsonl").read_text().splitlines()]
    jsonschema.Draft7Validator(_unified_schema()).validate(records)
    turn_ends = [r for r in records if r["type"] == "assistant.turn_end"]
    jsonl_ends = [e for e in events if e["event"] == "turn_end"]
    assert len(turn_ends) == len(jsonl_ends) == len([e for e in events if e["event"] == "turn_start"])
    completed = [e for e in jsonl_ends if "stop_reason" not in e]  # the cut-short last turn is not counted
    assert len(completed) == run.result["turns"] == len(jsonl_ends) - 1
    rows = jsonl(run.output_dir / "token-usage.jsonl")
    assert len(rows) == len([e for e in events if e["event"] == "request_end"])
    assert sum(r["effective_tokens"] for r in rows) == run.result["tokens"]["effective"]
    run_record = next(r for r in records if r["type"] == "harness.run")["data"]
    assert run_record["stopReason"] == "budget_exceeded" and run_record["budgetExceeded"]["reason"] == "hard_limit"
    assert run_record["exitCode"] == 1
