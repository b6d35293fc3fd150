"""``agent-session.jsonl``: the agent's own trace in gh-aw's canonical event form.

gh-aw collects ``/tmp/gh-aw/agent-session.jsonl`` in the agent artifact and merges it into the
unified session (``actions/setup/js/unified_session.cjs``, ``agent_session.cjs`` @01b3e64). Its
rules, which ``validate_line`` implements:

- one JSON object per line; no header line (``session.format`` belongs to the unified session);
- ``type`` a string containing a dot; ``data`` an object, not an array (``isSessionEvent``);
  any other line is reported as ``non_canonical_agent_event``;
- ``timestamp`` optional: an ISO 8601 string with a zone (``Z`` or ``±hh:mm``) or epoch ms;
- ``id``/``parentId`` optional strings; token counts in ``usage`` are safe non-negative integers
  and ``inputTokensIncludeCache`` a boolean (``normalizeSessionUsage`` drops anything else).

The ``data`` models below follow the unified-session schema's per-type definitions
(``docs/public/schemas/unified-session.schema.json``, camelCase, no unknown keys), so a line
written here projects unchanged into gh-aw's unified session (``usage/`` in its artifact).

``AgentSessionWriter`` appends one event per line with one ``os.write`` each (``JsonlFile``): a
run killed at any point leaves every line it finished.
"""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from aw_action.run import record_table
from aw_action.run.redact import Redactor
from aw_action.security.records.record_guard import RecordWrites
from aw_action.sinks import unified_session
from aw_action.sinks.files import JsonlFile

FILE_NAME = record_table.AGENT_SESSION.name
SOURCE_ENGINE = "aw-harness"
MAX_SAFE_INTEGER = 2**53 - 1
_ISO_WITH_ZONE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})", re.I | re.ASCII)
_TOKEN_FIELDS = (
    "totalTokens",
    "inputTokens",
    "outputTokens",
    "reasoningOutputTokens",
    "cacheReadInputTokens",
    "cacheCreationInputTokens",
)
Count = Field(default=None, ge=0, le=MAX_SAFE_INTEGER)


class _Data(BaseModel):
    # built when first used (gh-aw mode writes them; a standalone run never): not at start
    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        allow_inf_nan=False,
        frozen=True,
        defer_build=True,
    )


class SessionStart(_Data):
    source_engine: str = SOURCE_ENGINE
    model: str
    session_id: str | None = None
    cwd: str | None = None


class Message(_Data):
    """``user.message``, ``assistant.message``, ``assistant.reasoning``."""

    content: str
    model: str | None = None
    turn_id: str | None = None
    message_id: str | None = None


class Turn(_Data):
    """``assistant.turn_start`` / ``assistant.turn_end``: correlation only."""

    turn_id: str
    model: str | None = None


class ToolStart(_Data):
    tool_call_id: str
    tool_name: str
    input: Any = None
    turn_id: str | None = None


class ToolComplete(_Data):
    tool_call_id: str
    tool_name: str
    success: bool
    output: str | None = None
    error: str | None = None
    duration_ms: float | None = Field(default=None, ge=0)
    exit_code: int | None = None
    is_error: bool | None = None
    turn_id: str | None = None


class SessionUsage(_Data):
    """Additive classes, as the harness counts them: ``input_tokens`` excludes cache reads and
    writes, so ``input_tokens_include_cache`` is always written, and always false."""

    input_tokens: int | None = Count
    output_tokens: int | None = Count
    reasoning_output_tokens: int | None = Count
    cache_read_input_tokens: int | None = Count
    cache_creation_input_tokens: int | None = Count
    total_tokens: int | None = Count
    input_tokens_include_cache: bool = False


class SessionResult(_Data):
    num_turns: int = Field(ge=0, le=MAX_SAFE_INTEGER)
    duration_ms: float = Field(ge=0)
    total_cost_usd: float | None = Field(default=None, ge=0)
    status: str
    """``success`` or ``error`` (gh-aw's Claude-derived values); the stop reason goes in errors."""
    errors: list[str] = Field(default_factory=list)
    model: str | None = None
    usage: SessionUsage | None = None


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _clean(value: Any) -> Any:
    """Strings a UTF-8 file can hold: lone surrogates (from undecodable tool output) become ``?``."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def event(kind: str, data: _Data, *, timestamp: str | None = None, id: str | None = None) -> dict[str, Any]:
    """One canonical record: ``{"type", "data", "timestamp"[, "id"]}``."""
    record: dict[str, Any] = {"type": kind, "data": _clean(data.model_dump(by_alias=True, exclude_none=True))}
    record["timestamp"] = timestamp or now_iso()
    if id is not None:
        record["id"] = id
    problems = validate_record(record)
    if problems:
        raise ValueError(f"not a canonical agent-session event: {'; '.join(problems)}")
    return record


def _finite_json(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite_json(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite_json(v) for v in value)
    return True


def _timestamp_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return "timestamp must be an ISO 8601 string with a zone or epoch milliseconds"
    if isinstance(value, str):
        if not _ISO_WITH_ZONE.fullmatch(value):
            return f"timestamp {value!r} is not ISO 8601 with a zone"
        try:
            datetime.fromisoformat(value.replace("z", "Z").replace("Z", "+00:00"))
        except ValueError:
            return f"timestamp {value!r} is not a real date"
        return None
    if not math.isfinite(value) or abs(value) > 8_640_000_000_000_000:
        return f"timestamp {value!r} is out of range"
    return None


def _is_token_count(value: Any) -> bool:
    """JavaScript's ``Number.isSafeInteger(v) && v >= 0`` (so ``5.0`` counts, ``true`` does not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and value == int(value) and 0 <= value <= MAX_SAFE_INTEGER


def _usage_problems(usage: Any) -> list[str]:
    if usage is None:
        return []
    if not isinstance(usage, dict):
        return ["data.usage must be an object"]
    problems = []
    for key in _TOKEN_FIELDS:
        if key in usage and not _is_token_count(value := usage[key]):
            problems.append(f"data.usage.{key} must be a safe non-negative integer, got {value!r}")
    if "inputTokensIncludeCache" in usage and not isinstance(usage["inputTokensIncludeCache"], bool):
        problems.append("data.usage.inputTokensIncludeCache must be a boolean")
    return problems


def validate_record(record: Any) -> list[str]:
    """gh-aw's canonical-event rules for one parsed line; an empty list means canonical."""
    if not isinstance(record, dict):
        return ["a line must be a JSON object"]
    problems = []
    kind, data = record.get("type"), record.get("data")
    if not isinstance(kind, str) or "." not in kind:
        problems.append("type must be a string containing a dot")
    elif kind == "session.format":
        problems.append(f"no header line: session.format belongs to {unified_session.FILE_NAME}")
    if not isinstance(data, dict):
        problems.append("data must be an object (not an array)")
    elif kind == "session.result":
        problems.extend(_usage_problems(data.get("usage")))
    if "timestamp" in record and (problem := _timestamp_problem(record["timestamp"])):
        problems.append(problem)
    for key in ("id", "parentId"):
        if key in record and record[key] is not None and not isinstance(record[key], str):
            problems.append(f"{key} must be a string")
    if not _finite_json(record):
        problems.append("numbers must be finite")
    return problems


def validate_line(line: str) -> list[str]:
    try:
        record = json.loads(line)
    except ValueError as exc:
        return [f"not JSON: {exc}"]
    return validate_record(record)


def validate_file(path: Path) -> list[tuple[int, str]]:
    """``(line number, problem)`` for every non-canonical line, in line order; blank lines and an
    unterminated last line are problems too (a line is only whole once its newline is written)."""
    out: list[tuple[int, str]] = []
    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    for number, raw in enumerate(lines, 1):
        last = number == len(lines)
        if last and not raw:
            break
        if last:
            out.append((number, "the last line is not terminated"))
        if not raw.strip():
            out.append((number, "blank line"))
            continue
        out.extend((number, problem) for problem in validate_line(raw))
    return out


class AgentSessionWriter(JsonlFile):
    """Appends canonical events to ``agent-session.jsonl``, one ``os.write`` per line, redacted
    (``JsonlFile``). ``write`` raises ``ValueError`` for a non-canonical event (a bug here, never
    written) and ``OSError`` when the disk does; the caller decides what a failed record costs."""

    def __init__(self, output_dir: Path, redactor: Redactor, records: RecordWrites | None = None) -> None:
        super().__init__(output_dir / FILE_NAME, redactor, records)

    def write(self, record: dict[str, Any]) -> None:
        problems = validate_record(record)
        if problems:
            raise ValueError(f"not a canonical agent-session event: {'; '.join(problems)}")
        super().write(record)

    def emit(self, kind: str, data: _Data, **meta: Any) -> dict[str, Any]:
        """``event(kind, data)``, canonical by construction, written unchecked."""
        record = event(kind, data, **meta)
        super().write(record)
        return record
