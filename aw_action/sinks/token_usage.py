"""``token-usage.jsonl``: one record per model request, field names as AWF's api-proxy writes them.

AWF's required fields (``_schema``, ``timestamp``, ``event``, ``request_id``, ``provider``,
``model``, ``path``, ``status``, ``streaming``, token classes, ``duration_ms``) come first, then
``purpose``, ``reasoning_tokens`` and the harness's own ``effective_tokens``, ``cost_usd``,
``ai_credits``, ``turn``, ``outcome`` and ``attempts``; ``steering {type, threshold}`` only on
the request that carried a notice. ``status`` is the HTTP status of the request's last response
(``null`` when no response arrived); ``outcome`` is ``ok``, ``error`` or ``aborted``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.run.ledger import RequestRecord
from aw_action.run.redact import Redactor
from aw_action.security.record_guard import RecordWrites
from aw_action.sinks.files import JsonlFile

FILE_NAME = "token-usage.jsonl"
SCHEMA = "token-usage/v1.0.0-awharness"

API_PATHS = {
    "anthropic-messages": "/v1/messages",
    "openai-completions": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
}


def usage_row(record: RequestRecord, http_status: int | None, api: str = "") -> dict[str, Any]:
    u = record.usage
    row: dict[str, Any] = {
        "_schema": SCHEMA,
        "timestamp": record.timestamp,
        "event": "token_usage",
        "request_id": record.request_id,
        "purpose": record.purpose,
        "provider": record.provider,
        "model": record.model,
        "path": API_PATHS.get(api, ""),
        "status": http_status,
        "streaming": record.streaming,
        "input_tokens": u.input,
        "output_tokens": u.output,
        "cache_read_tokens": u.cache_read,
        "cache_write_tokens": u.cache_write,
        "reasoning_tokens": u.reasoning,
        "duration_ms": record.duration_ms,
        "effective_tokens": round(record.effective_tokens, 2),
        "cost_usd": record.cost_usd,
        "ai_credits": None if record.ai_credits is None else round(record.ai_credits, 6),
        "turn": record.turn,
        "outcome": record.status,
        "attempts": record.attempts,
    }
    if record.steering:
        row["steering"] = {"type": record.steering.get("type"), "threshold": record.steering.get("threshold")}
    if record.error:
        row["error"] = record.error
    return row


class TokenUsageFile:
    def __init__(self, output_dir: Path, redactor: Redactor, records: RecordWrites | None = None) -> None:
        self.file = JsonlFile(output_dir / FILE_NAME, redactor, records)

    @property
    def path(self) -> Path:
        return self.file.path

    def append(self, record: RequestRecord, http_status: int | None, api: str = "") -> None:
        self.file.write(usage_row(record, http_status, api))

    def close(self) -> None:
        self.file.close()
