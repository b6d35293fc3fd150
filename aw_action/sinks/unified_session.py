"""``aw_session.jsonl``: the run in gh-aw's unified agent session shape.

Framing (gh-aw unified-agent-session spec v1.4): line 1 is the fixed ``session.format`` header,
then ``{type, timestamp, data, provenance}`` records in time order (written as they happen), and
a closing ``session.collection`` coverage record. Known types carry camelCase payloads valid
against gh-aw's schema; harness records (warnings, retries, steering, ...) use the opaque
``harness.<event>`` namespace. No prompt, response, tool input or tool output text is written:
the transcript (``session.jsonl``) holds content; this file holds facts.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from aw_action.run.ledger import RequestRecord
from aw_action.run.redact import Redactor
from aw_action.security.record_guard import RecordWrites
from aw_action.sinks.files import JsonlFile
from aw_action.timestamps import utc_iso, utc_now

FILE_NAME = "aw_session.jsonl"
HEADER: dict[str, Any] = {
    "type": "session.format",
    "data": {"version": 1},
    "provenance": {"component": "collector", "phase": "conclusion", "path": "usage/aw_session.jsonl", "index": 0},
}
TRANSCRIPT_SOURCE = "session.jsonl"
USAGE_SOURCE = "token-usage.jsonl"


def usage_report(record: RequestRecord, http_status: int | None, total_aic: float | None) -> dict[str, Any]:
    """``usage.report`` data for one request (the alias of ``firewall.token_usage``)."""
    u = record.usage
    data: dict[str, Any] = {
        "provider": record.provider,
        "model": record.model,
        "requestId": record.request_id,
        "status": http_status,
        "durationMs": record.duration_ms,
        "usage": {
            "inputTokens": u.input,
            "outputTokens": u.output,
            "reasoningOutputTokens": u.reasoning,
            "cacheReadInputTokens": u.cache_read,
            "cacheCreationInputTokens": u.cache_write,
            "inputTokensIncludeCache": False,
        },
    }
    if record.ai_credits is not None:
        data["aic"] = round(record.ai_credits, 6)
    if total_aic is not None:
        data["totalAic"] = round(total_aic, 6)
    if record.purpose and record.purpose != "agent":
        data["purpose"] = record.purpose
    if record.steering:
        data["steering"] = {"type": record.steering.get("type"), "threshold": record.steering.get("threshold")}
    return data


class UnifiedSession:
    def __init__(self, output_dir: Path, redactor: Redactor, records: RecordWrites | None = None) -> None:
        self.file = JsonlFile(output_dir / FILE_NAME, redactor, records)
        self._indexes: dict[tuple[str, str, str], int] = {}

    @property
    def path(self) -> Path:
        return self.file.path

    def start(self) -> None:
        self.file.write(HEADER)

    def record(
        self,
        type_: str,
        data: dict[str, Any],
        *,
        component: str = "agent",
        source: str = TRANSCRIPT_SOURCE,
        at: datetime | None = None,
    ) -> None:
        key = (component, "agent", source)
        index = self._indexes.get(key, 0)
        self._indexes[key] = index + 1
        stamp = at or utc_now()
        provenance = {
            "component": component,
            "phase": "agent",
            "path": source,
            "index": index,
            "timestampMs": int(stamp.timestamp() * 1000),
        }
        self.file.write({"type": type_, "timestamp": utc_iso(stamp), "data": data, "provenance": provenance})

    def finish(self) -> None:
        """Append the ``session.collection`` coverage record and close the file."""
        sources = [
            {"component": c, "phase": p, "path": path, "events": n, "timestampUnit": "milliseconds"}
            for (c, p, path), n in self._indexes.items()
        ]
        absent = [c for c in ("mcp", "firewall", "safe_output") if all(s["component"] != c for s in sources)]
        self.file.write(
            {
                "type": "session.collection",
                "data": {"sources": sources, "warnings": 0, "untimedEvents": 0, "absentComponents": absent},
                "provenance": {
                    "component": "collector",
                    "phase": "conclusion",
                    "path": "usage/aw_session.jsonl",
                    "index": 1,
                },
            }
        )
        self.file.close()
