"""The usage ledger: every model request, turn and tool call of a run, counted once.

Owner: the cost tracker is the only writer (``record_request``, ``close_turn``, ``record_tool_call``,
``record_tool_end``, ``record_model_change``, ``outlook``); every sink reads. Totals are kept as
the records arrive, so a reader never re-sums and a budget gate always sees the figure the next
record will be checked against.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from aw_action.ai.types import Usage
from aw_action.lazy_dataclass import dataclass
from aw_action.run.effective_tokens import credits
from aw_action.timestamps import utc_iso


@dataclass(frozen=True)
class RequestRecord:
    """One model request: a row of the token-usage file (field names as AWF's)."""

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
    prompt: int = 1
    """Which prompt of the run (1-based) the request belongs to."""


@dataclass(frozen=True)
class TurnRecord:
    """One completed turn (a ``turn_end``), 1-based over the whole run, with running totals."""

    turn: int
    usage: Usage
    effective_tokens: float
    cost_usd: float | None
    cumulative_tokens: int
    cumulative_effective_tokens: float
    cumulative_cost_usd: float | None
    tool_calls: int
    ended_at: str
    prompt: int = 1


@dataclass
class ToolStats:
    count: int = 0
    errors: int = 0
    duration_ms: int = 0


@dataclass(frozen=True)
class Outlook:
    """The cost tracker's forecast for one amount budget after a turn (steering reads it)."""

    budget: str
    used: float
    next_request: float
    """What the next request is expected to cost at most: its input at full price and an
    answer as long as the longest so far (at least the floor)."""
    last_call: bool
    """After the next request, the budget is not expected to pay for another one."""


@dataclass(frozen=True)
class ModelChange:
    """The session switched models (``AgentSession.set_model``) at a save point: requests from
    ``turn`` on use ``to``, its prices and its context window."""

    turn: int
    from_model: str
    to_model: str
    reasoning_dropped: int = 0
    """The previous model's reasoning blocks taken out of the history sent to the new one."""


@dataclass
class UsageLedger:
    requests: list[RequestRecord] = field(default_factory=list)
    turns: list[TurnRecord] = field(default_factory=list)
    totals: Usage = field(default_factory=Usage)
    effective_tokens: float = 0.0
    cost_usd: float | None = 0.0
    """None once any request had an unknown price: the total is then unknown, not understated."""
    tools: dict[str, ToolStats] = field(default_factory=dict)
    tool_calls: int = 0
    """Tool calls authorised to run (the ``tool_calls`` gate counts these, before they end)."""
    outlook: dict[str, Outlook] = field(default_factory=dict)
    """Per amount budget, the forecast made at the last turn end."""
    durations_ms: dict[str, int] = field(default_factory=dict)
    """Each ended tool call's duration, by its call id (the summary lists the calls)."""
    refused_tool_calls: int = 0
    """Calls that ended without being authorised to run (an unknown tool, arguments that do not
    fit its schema, a call the tool-call budget blocked): failed calls ``tool_calls`` leaves out."""
    model_changes: list[ModelChange] = field(default_factory=list)
    _authorised: set[str] = field(default_factory=set)
    _turn_start: int = 0

    @property
    def ai_credits(self) -> float | None:
        return credits(self.cost_usd)

    @property
    def next_turn(self) -> int:
        return len(self.turns) + 1

    def record_request(self, record: RequestRecord) -> None:
        self.requests.append(record)
        self.totals = self.totals + record.usage
        self.effective_tokens += record.effective_tokens
        if self.cost_usd is not None:  # to 10^-12 USD: sums of binary fractions stay readable
            self.cost_usd = None if record.cost_usd is None else round(self.cost_usd + record.cost_usd, 12)

    def close_turn(self, tool_calls: int, prompt: int = 1, ended_at: str | None = None) -> TurnRecord:
        """Book the requests since the last turn as one completed turn."""
        turn = self.open_turn(tool_calls, prompt, ended_at)
        self._turn_start = len(self.requests)
        self.turns.append(turn)
        return turn

    def open_turn(self, tool_calls: int = 0, prompt: int = 1, ended_at: str | None = None) -> TurnRecord:
        """The requests since the last completed turn as a turn, without booking it (a turn cut
        short by an abort is reported, never counted)."""
        records = self.requests[self._turn_start :]
        usage = Usage()
        for r in records:
            usage = usage + r.usage
        costs = [r.cost_usd for r in records]
        cost = None if any(c is None for c in costs) else sum(c for c in costs if c is not None)
        return TurnRecord(
            turn=self.next_turn,
            usage=usage,
            effective_tokens=sum(r.effective_tokens for r in records),
            cost_usd=cost,
            cumulative_tokens=self.totals.total,
            cumulative_effective_tokens=self.effective_tokens,
            cumulative_cost_usd=self.cost_usd,
            tool_calls=tool_calls,
            ended_at=ended_at or utc_iso(),
            prompt=prompt,
        )

    def record_model_change(self, change: ModelChange) -> None:
        self.model_changes.append(change)

    def record_tool_call(self, call_id: str = "") -> None:
        self.tool_calls += 1
        self._authorised.add(call_id)

    def record_tool_end(self, name: str, is_error: bool, duration_ms: int, call_id: str = "") -> None:
        if call_id and call_id not in self._authorised:
            self.refused_tool_calls += 1
        stats = self.tools.setdefault(name, ToolStats())
        stats.count += 1
        stats.errors += int(is_error)
        stats.duration_ms += duration_ms
        if call_id:
            self.durations_ms[call_id] = duration_ms

    @property
    def calls_made(self) -> int:
        """Every tool call the model asked for that was authorised or ended: what people count
        (``failed_tool_calls`` is never more)."""
        return self.tool_calls + self.refused_tool_calls

    @property
    def failed_tool_calls(self) -> int:
        """Tool calls that ended in an error (a failed command, a blocked call, a missing file)."""
        return sum(stats.errors for stats in self.tools.values())
