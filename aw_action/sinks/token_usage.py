"""``token-usage.jsonl`` (standalone runs): one record per model request in AWF's field names.

AWF's api-proxy writes this file inside a compiled gh-aw workflow, so the harness writes it only
in standalone runs (``run/mode.py``). Its rows follow AWF's current record
(gh-aw-firewall ``token-tracker-http.js``; ``schemas/token-usage.schema.json``, copied in
tests/audit/data/gh-aw) so the same readers take both:

- AWF's required fields first (``_schema``, ``timestamp``, ``event``, ``request_id``, ``provider``,
  ``model``, ``path``, ``status``, ``streaming``, the token classes, ``duration_ms``);
- ``provider`` from AWF's list (``anthropic``, ``openai``, ``copilot``, ``gemini``, ``opencode``,
  else ``unknown``); the harness's own name is in ``harness_provider`` when it differs;
- ``status`` is always an integer: the HTTP status of the request's last response, else 200 for
  a request answered without HTTP (the scripted provider), 499 when the harness aborted it and 502
  when no response arrived;
- ``output_tokens`` includes reasoning (AWF's, and the providers', sense); ``reasoning_tokens``
  is that part; ``input_tokens_include_cache: false`` (cache reads and writes are counted apart);
- ``ai_credits_this_response`` and ``ai_credits_total`` (harness pricing) when the price is known.

Then the harness's own ``purpose``, ``effective_tokens``, ``cost_usd``, ``turn``, ``outcome``
(``ok``, ``error``, ``aborted``) and ``attempts``; ``steering {type, threshold}`` only on the
request that carried a notice; ``error`` on a failed one.
"""

from __future__ import annotations

from typing import Any

from aw_action.run import record_table
from aw_action.run.ledger import RequestRecord
from aw_action.sinks.record_writer import BookedRequest, JsonlRecordWriter

FILE_NAME = record_table.TOKEN_USAGE.name
SCHEMA = "token-usage/v1.1.0-awharness"
LEGACY_SCHEMA = "token-usage/v1.0.0-awharness"
"""Rows before AWF's field names: ``output_tokens`` without reasoning, ``ai_credits``, ``status`` null."""
AWF_PROVIDERS = frozenset({"anthropic", "openai", "copilot", "gemini", "opencode"})

API_PATHS = {
    "anthropic-messages": "/v1/messages",
    "openai-completions": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
}
NO_HTTP_STATUS = {"ok": 200, "aborted": 499}
NO_RESPONSE = 502


def usage_row(
    record: RequestRecord, http_status: int | None, api: str = "", ai_credits_total: float | None = None
) -> dict[str, Any]:
    u = record.usage
    provider = record.provider if record.provider in AWF_PROVIDERS else "unknown"
    status = http_status if http_status is not None else NO_HTTP_STATUS.get(record.status, NO_RESPONSE)
    row: dict[str, Any] = {
        "_schema": SCHEMA,
        "timestamp": record.timestamp,
        "event": "token_usage",
        "request_id": record.request_id,
        "provider": provider,
        "model": record.model,
        "path": API_PATHS.get(api, ""),
        "status": status,
        "streaming": record.streaming,
        "input_tokens": u.input,
        "output_tokens": u.output + u.reasoning,
        "cache_read_tokens": u.cache_read,
        "cache_write_tokens": u.cache_write,
        "reasoning_tokens": u.reasoning,
        "input_tokens_include_cache": False,
        "duration_ms": record.duration_ms,
    }
    if provider != record.provider:
        row["harness_provider"] = record.provider
    if record.ai_credits is not None:
        row["ai_credits_this_response"] = round(record.ai_credits, 6)
        if ai_credits_total is not None:
            row["ai_credits_total"] = round(ai_credits_total, 6)
    row.update(
        purpose=record.purpose,
        effective_tokens=round(record.effective_tokens, 2),
        cost_usd=record.cost_usd,
        turn=record.turn,
        outcome=record.status,
        attempts=record.attempts,
    )
    if record.steering:
        row["steering"] = {"type": record.steering.get("type"), "threshold": record.steering.get("threshold")}
    if record.error:
        row["error"] = record.error
    return row


class TokenUsageFile(JsonlRecordWriter):
    """One row per model request, as the ledger books it."""

    row = record_table.TOKEN_USAGE
    subsystem = "token-usage"

    def on_request(self, request: BookedRequest) -> None:
        row = usage_row(request.record, request.http_status, request.api, self.state.ledger.ai_credits)
        self.file.write(row)
