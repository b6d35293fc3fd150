"""The audit reads token-usage rows in AWF's field names (AWF's own and the harness's since it
uses them) and the harness's earlier rows alike: one request, one reading."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from aw_action.ai.types import Usage
from aw_action.audit.readers import from_token_usage
from aw_action.run.ledger import RequestRecord
from aw_action.sinks.token_usage import LEGACY_SCHEMA, usage_row

SCHEMA = json.loads((Path(__file__).parent / "data" / "gh-aw" / "awf-token-usage.schema.json").read_text())


def record(provider: str = "openai", status: str = "ok") -> RequestRecord:
    return RequestRecord(
        timestamp="2026-10-09T18:15:42.915Z",
        request_id="req-1",
        provider=provider,
        model="o3",
        purpose="agent",
        status=status,
        streaming=True,
        usage=Usage(input=1000, output=300, cache_read=200, cache_write=0, reasoning=120),
        duration_ms=2000,
        effective_tokens=2700.0,
        cost_usd=0.05,
        ai_credits=5.0,
        turn=1,
        attempts=1,
    )


def legacy_row() -> dict[str, object]:
    """What the harness wrote before (token-usage/v1.0.0-awharness)."""
    return {"_schema": LEGACY_SCHEMA, "timestamp": "2026-10-09T18:15:42.915Z", "event": "token_usage",
            "request_id": "req-1", "purpose": "agent", "provider": "openai", "model": "o3", "path": "/v1/responses",
            "status": None, "streaming": True, "input_tokens": 1000, "output_tokens": 300, "cache_read_tokens": 200,
            "cache_write_tokens": 0, "reasoning_tokens": 120, "duration_ms": 2000, "effective_tokens": 2700.0,
            "cost_usd": 0.05, "ai_credits": 5.0, "turn": 1, "outcome": "ok", "attempts": 1}  # fmt: skip


def test_our_rows_are_awf_records() -> None:
    row = usage_row(record(), 200, "openai-responses", ai_credits_total=7.5)
    jsonschema.Draft202012Validator(SCHEMA).validate(row)
    assert (row["output_tokens"], row["reasoning_tokens"]) == (420, 120)
    assert (row["ai_credits_this_response"], row["ai_credits_total"], row["status"]) == (5.0, 7.5, 200)
    assert row["input_tokens_include_cache"] is False and "harness_provider" not in row


def test_the_new_and_the_legacy_row_read_the_same() -> None:
    new = from_token_usage(usage_row(record(), 200, "openai-responses"), "agent")
    old = from_token_usage(legacy_row(), "agent")
    assert new is not None and old is not None
    for request in (new, old):
        assert (request.output, request.reasoning, request.input, request.cache_read) == (300, 120, 1000, 200)
        assert (request.ai_credits, request.provider, request.effective_tokens) == (5.0, "openai", 2700.0)


def test_an_awf_row_keeps_its_output_since_awf_writes_no_reasoning_count() -> None:
    awf = {"_schema": "token-usage/v0.28.50", "event": "token_usage", "request_id": "r", "provider": "copilot",
           "model": "claude-sonnet-5", "status": 200, "input_tokens": 2, "output_tokens": 140,
           "cache_read_tokens": 0, "cache_write_tokens": 58798, "duration_ms": 2936,
           "ai_credits_this_response": 14.8399}  # fmt: skip
    request = from_token_usage(awf, "agent")
    assert request is not None and (request.output, request.reasoning, request.ai_credits) == (140, 0, 14.8399)


def test_a_provider_awf_does_not_list_is_unknown_to_awf_and_named_for_the_audit() -> None:
    row = usage_row(record(provider="github"), None)
    jsonschema.Draft202012Validator(SCHEMA).validate(row)
    assert (row["provider"], row["harness_provider"], row["status"]) == ("unknown", "github", 200)
    request = from_token_usage(row, "agent")
    assert request is not None and request.provider == "github"


def test_a_request_without_a_response_still_has_an_integer_status() -> None:
    assert usage_row(record(status="error"), None)["status"] == 502
    assert usage_row(record(status="aborted"), None)["status"] == 499
    assert usage_row(record(status="error"), 429)["status"] == 429
    for status in ("error", "aborted"):
        jsonschema.Draft202012Validator(SCHEMA).validate(usage_row(record(status=status), None))
