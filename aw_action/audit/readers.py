"""Readers: unified sessions (gh-aw's, or a standalone run's) and token-usage files (AWF's or
ours) into one ``Request`` shape (the file names: ``audit/sources.py``).

Rules, after gh-aw's audit: the unified session is the source of truth for requests and
steering notices (``firewall.token_usage`` and its alias ``usage.report``); a missing value is
unknown, never zero; a steering entry without a string ``type`` and a numeric ``threshold`` is
ignored; a line that is not a JSON object is skipped and counted.

Hostile records are lines like any malformed one: a line over ``MAX_LINE_CHARS``, nested deeper
than ``MAX_DEPTH``, or holding a non-finite number (``NaN``, ``Infinity``, ``1e400``) or a
number beyond the 64-bit integer range is skipped, counted, and its reason kept (``LineStats``), so that no
number in the report is infinite and nothing recurses without bound.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

from aw_action.environment.strict_json import MAX_JSON_DEPTH, TooDeep, parse_json
from aw_action.lazy_dataclass import dataclass

USAGE_TYPES = frozenset({"firewall.token_usage", "usage.report"})
ET_WEIGHTS = {"input": 1.0, "cache_read": 0.1, "output": 4.0, "reasoning": 4.0, "cache_write": 1.0}
"""gh-aw effective-token weights, used when a record does not carry its own figure (multiplier 1)."""


@dataclass(slots=True)
class Request:
    request_id: str
    model: str
    provider: str = ""
    purpose: str = ""
    phase: str = "agent"
    timestamp: str = ""
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    duration_ms: float = 0
    cost_usd: float | None = None
    ai_credits: float | None = None
    effective_tokens: float | None = None
    steering: dict[str, Any] | None = None
    turn: int | None = None

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write + self.reasoning

    @property
    def effective(self) -> float:
        if self.effective_tokens is not None:
            return self.effective_tokens
        return float(sum(w * float(getattr(self, k)) for k, w in ET_WEIGHTS.items()))


MAX_LINE_CHARS = 1024 * 1024
MAX_DEPTH = MAX_JSON_DEPTH
_INT_LIMIT = 2**63


@dataclass
class LineStats:
    """Lines skipped in one file, and why the first one was."""

    bad: int = 0
    first_problem: str | None = None

    def skip(self, lineno: int, reason: str) -> None:
        self.bad += 1
        if self.first_problem is None:
            self.first_problem = f"line {lineno}: {reason}"


def parse_record(line: str) -> Any:
    """One JSONL line as a value; ``ValueError`` with a short reason when it must be skipped."""
    if len(line) > MAX_LINE_CHARS:
        raise ValueError(f"longer than {MAX_LINE_CHARS} characters")
    try:  # numbers within the 64-bit integer range: records hold counts and costs, and sums must stay finite
        return parse_json(line, max_magnitude=_INT_LIMIT)
    except TooDeep:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None


def iter_jsonl(text: str, stats: LineStats) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL text, one at a time; every other line is counted in ``stats``."""
    for lineno, line in enumerate(io.StringIO(text), start=1):
        if not line.strip():
            continue
        try:
            value = parse_record(line)
        except ValueError as exc:
            stats.skip(lineno, str(exc))
            continue
        if isinstance(value, dict):
            yield value
        else:
            stats.skip(lineno, "not a JSON object")


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


MAX_DURATION_MS = 1e12
"""About 30 years: a longer duration is nonsense, and would overflow a ``timedelta``."""


def duration_ms(value: Any) -> float | None:
    """A duration in ms from a record, or None when it is not a plausible one."""
    number = _num(value)
    return number if number is not None and 0 <= number <= MAX_DURATION_MS else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def steering_of(value: Any) -> dict[str, Any] | None:
    if isinstance(value, dict) and isinstance(value.get("type"), str) and _num(value.get("threshold")) is not None:
        threshold = value["threshold"]
        return {"type": value["type"], "threshold": int(threshold) if float(threshold).is_integer() else threshold}
    return None


def _credits_and_cost(aic: float | None, cost: float | None) -> tuple[float | None, float | None]:
    if aic is None and cost is not None:
        aic = cost / 0.01
    if cost is None and aic is not None:
        cost = aic * 0.01
    return aic, cost


def from_unified(record: dict[str, Any]) -> Request | None:
    """A ``Request`` from a ``firewall.token_usage`` / ``usage.report`` record, else None."""
    if record.get("type") not in USAGE_TYPES or not isinstance(record.get("data"), dict):
        return None
    data = record["data"]
    usage: dict[str, Any] = data["usage"] if isinstance(data.get("usage"), dict) else {}
    provenance: dict[str, Any] = record["provenance"] if isinstance(record.get("provenance"), dict) else {}
    aic, cost = _credits_and_cost(_num(data.get("aic")), None)
    return Request(
        request_id=str(data.get("requestId") or ""),
        model=str(data.get("model") or "unknown"),
        provider=str(data.get("provider") or ""),
        purpose=str(data.get("purpose") or ""),
        phase=str(provenance.get("phase") or "agent"),
        timestamp=str(record.get("timestamp") or ""),
        input=_int(usage.get("inputTokens")),
        output=_int(usage.get("outputTokens")),
        cache_read=_int(usage.get("cacheReadInputTokens")),
        cache_write=_int(usage.get("cacheCreationInputTokens")),
        reasoning=_int(usage.get("reasoningOutputTokens")),
        duration_ms=duration_ms(data.get("durationMs")) or 0,
        cost_usd=cost,
        ai_credits=aic,
        steering=steering_of(data.get("steering")),
    )


LEGACY_HARNESS_USAGE = "token-usage/v1.0.0-awharness"
"""aw-harness rows before AWF's field names: ``output_tokens`` without reasoning."""


def from_token_usage(row: dict[str, Any], phase: str) -> Request | None:
    """A ``Request`` from an AWF or aw-harness token-usage row. AWF's ``output_tokens``
    (and the harness's since it uses AWF's names) include ``reasoning_tokens``; a ``Request``
    counts them apart. ``harness_provider`` names the provider AWF's list has no name for."""
    if row.get("event", "token_usage") != "token_usage" or "input_tokens" not in row:
        return None
    reasoning = _int(row.get("reasoning_tokens"))
    output = _int(row.get("output_tokens"))
    if row.get("_schema") != LEGACY_HARNESS_USAGE:
        output = max(0, output - reasoning)
    aic = _num(row.get("ai_credits_this_response"))
    aic, cost = _credits_and_cost(aic if aic is not None else _num(row.get("ai_credits")), _num(row.get("cost_usd")))
    return Request(
        request_id=str(row.get("request_id") or ""),
        model=str(row.get("model") or "unknown"),
        provider=str(row.get("harness_provider") or row.get("provider") or ""),
        purpose=str(row.get("purpose") or ""),
        phase=phase,
        timestamp=str(row.get("timestamp") or ""),
        input=_int(row.get("input_tokens")),
        output=output,
        cache_read=_int(row.get("cache_read_tokens")),
        cache_write=_int(row.get("cache_write_tokens")),
        reasoning=reasoning,
        duration_ms=duration_ms(row.get("duration_ms")) or 0,
        cost_usd=cost,
        ai_credits=aic,
        effective_tokens=_num(row.get("effective_tokens")),
        steering=steering_of(row.get("steering")),
        turn=_int(row.get("turn")) or None,
    )


def phase_of_path(path: str) -> str:
    return "detection" if "threat-detection" in path or "/detection/" in f"/{path}" else "agent"
