"""RunState: the facts of one run, written by the built-in extensions and read by every sink.

One source of truth per fact: the cost tracker appends ``requests`` and ``turns`` and keeps the
totals; steering appends ``steering_notices``; observability appends ``provenance``; anything
that degrades appends to ``degraded``. Sinks (JSONL, summary, usage files, OTel, the stdout
result, GITHUB_OUTPUT) only read.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from aw_action.ai.types import Usage


@dataclass
class RequestRecord:
    """One model request: a token-usage.jsonl row (field names as AWF's)."""

    timestamp: str
    request_id: str
    provider: str
    model: str
    purpose: str
    status: str
    """``ok``, ``error`` or ``aborted``."""
    streaming: bool
    usage: Usage
    duration_ms: int
    effective_tokens: float
    cost_usd: float | None
    ai_credits: float | None
    turn: int
    attempts: int = 1
    steering: dict[str, Any] | None = None
    error: str | None = None


@dataclass
class TurnRecord:
    """One completed turn (a ``turn_end``), 1-based, with running totals."""

    turn: int
    usage: Usage
    effective_tokens: float
    cost_usd: float | None
    cumulative_tokens: int
    cumulative_effective_tokens: float
    cumulative_cost_usd: float | None
    tool_calls: int
    ended_at: str


@dataclass
class Degradation:
    """A subsystem that failed without failing the run; shown in the summary's notice."""

    subsystem: str
    detail: str
    hint: str


@dataclass
class ToolStats:
    count: int = 0
    errors: int = 0
    duration_ms: int = 0


def utc_iso(ts: datetime | None = None) -> str:
    ts = ts or datetime.now(UTC)
    return ts.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass
class RunState:
    model: str
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    started_monotonic: float = field(default_factory=time.monotonic)
    requests: list[RequestRecord] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    totals: Usage = field(default_factory=Usage)
    effective_tokens: float = 0.0
    cost_usd: float | None = 0.0
    """None once any request had an unknown price: the total is then unknown, not understated."""
    limits: dict[str, float] = field(default_factory=dict)
    """Configured budgets by name: ``effective_tokens``, ``ai_credits``, ``turns``, ``minutes``."""
    steering_notices: list[dict[str, Any]] = field(default_factory=list)
    provenance: list[dict[str, Any]] = field(default_factory=list)
    tools: dict[str, ToolStats] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    degraded: list[Degradation] = field(default_factory=list)
    budget_exceeded: dict[str, Any] | None = None
    stop_reason: str | None = None
    final_message: str = ""
    files: list[Path] = field(default_factory=list)
    extensions_loaded: list[str] = field(default_factory=list)

    @property
    def ai_credits(self) -> float | None:
        return None if self.cost_usd is None else self.cost_usd / 0.01

    @property
    def elapsed_ms(self) -> int:
        return round((time.monotonic() - self.started_monotonic) * 1000)

    def add_file(self, path: Path) -> None:
        if path not in self.files:
            self.files.append(path)

    def degrade(self, subsystem: str, detail: str, hint: str) -> None:
        if not any(d.subsystem == subsystem and d.detail == detail for d in self.degraded):
            self.degraded.append(Degradation(subsystem, detail, hint))
