"""How a run ended, and the one result record every report is built from.

``Outcome.of(stop_reason)`` is the one mapping from a stop reason to a conclusion and exit code
(spec §5.3): ``completed`` 0 (success); ``skipped`` 0 (the run was not started on purpose);
``paused`` 0 (a workflow waits for a review or was paused by a step; docs/workflows.md);
invocation errors 2 (``credentials_refused`` too: the provider refused the key, HTTP 401/403);
``cancelled`` 1 (cancelled); any other reason 1 (failure), among them ``invalid_output`` (the
final answer never matched ``output-schema``).

``ResultRecord`` is shaped once, by ``RunResult.record()``; the stdout object, the JSONL
``session_end``, the unified-session closing records and the action outputs are views of it.
"""

from __future__ import annotations

from dataclasses import asdict, field
from typing import Any

from aw_action.exits import InvocationError, Setting
from aw_action.lazy_dataclass import dataclass
from aw_action.run import record_table
from aw_action.run.record import StructuredOutput
from aw_action.run.state import RunState

RESULT_FILE = record_table.RESULT.name
"""The result object in the output folder (the action writes it: ``github/run_report.py``)."""
INVOCATION_STOP_REASONS = frozenset({"invocation_error", "sdk_load_error", "extension_error", "credentials_refused"})
ERROR_KIND_STOP_REASONS: dict[str, str] = {"auth": "credentials_refused"}
"""A run whose last request failed with this ``error_kind`` ends with this stop reason rather than
``error``: a refused key is the invocation's fault (exit 2), not the session's."""


def error_stop_reason(error_kind: str | None) -> str:
    return ERROR_KIND_STOP_REASONS.get(error_kind or "", "error")


@dataclass(frozen=True)
class Outcome:
    conclusion: str
    stop_reason: str
    exit_code: int

    @classmethod
    def of(cls, stop_reason: str) -> Outcome:
        if stop_reason == "completed":
            return cls("success", stop_reason, 0)
        if stop_reason == "skipped":
            return cls("skipped", stop_reason, 0)
        if stop_reason == "paused":
            return cls("paused", stop_reason, 0)
        if stop_reason in INVOCATION_STOP_REASONS:
            return cls("failure", stop_reason, 2)
        if stop_reason == "cancelled":
            return cls("cancelled", stop_reason, 1)
        return cls("failure", stop_reason, 1)


@dataclass(frozen=True)
class TokenTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    total: int = 0
    effective: float = 0


@dataclass(frozen=True)
class ResultRecord:
    """The run's result; ``to_json()`` is the object printed on stdout (key order is the contract)."""

    conclusion: str
    stop_reason: str
    exit_code: int
    model: str
    turns: int
    tool_calls: int
    tokens: TokenTotals
    cost_usd: float | None
    ai_credits: float | None
    duration_ms: int
    final_message: str
    files: list[str]
    error: str | None
    degraded: list[str] = field(default_factory=list)
    structured_output: StructuredOutput | None = None

    def to_json(self) -> dict[str, Any]:
        """``structured_output`` is there only when the run has an ``output-schema``: the
        validated value, or null when the final answer never matched."""
        data = asdict(self)
        data.pop("degraded")
        data.pop("structured_output")
        checked = self.structured_output
        if checked is not None:
            data["structured_output"] = checked.value if checked.valid else None
        return data


@dataclass
class RunResult:
    outcome: Outcome
    model: str
    state: RunState | None = None
    error: str | None = None
    files: list[str] = field(default_factory=list)
    cause: InvocationError | None = None
    """The invocation error a run that could not start ended with (``run/explain.py`` reads it)."""

    @classmethod
    def ended(cls, stop_reason: str, model: str, state: RunState | None, error: str | None = None) -> RunResult:
        return cls(Outcome.of(stop_reason), model, state, error)

    @classmethod
    def invocation_error(cls, exc: InvocationError, model: str, state: RunState | None = None) -> RunResult:
        return cls(Outcome("failure", exc.stop_reason, exc.exit_code), model, state, str(exc), cause=exc)

    @property
    def setting(self) -> Setting | None:
        """What to change to fix the invocation error, when the error names it."""
        return self.cause.setting if self.cause is not None else None

    @property
    def exit_code(self) -> int:
        return self.outcome.exit_code

    @property
    def stop_reason(self) -> str:
        return self.outcome.stop_reason

    @property
    def conclusion(self) -> str:
        return self.outcome.conclusion

    def record(self) -> ResultRecord:
        s = self.state
        if s is None:
            return ResultRecord(
                *(self.conclusion, self.stop_reason, self.exit_code, self.model, 0, 0, TokenTotals()),
                cost_usd=None,
                ai_credits=None,
                duration_ms=0,
                final_message="",
                files=list(self.files),
                error=self.error,
            )
        ledger, totals = s.ledger, s.ledger.totals
        return ResultRecord(
            conclusion=self.conclusion,
            stop_reason=self.stop_reason,
            exit_code=self.exit_code,
            model=self.model,
            turns=len(ledger.turns),
            tool_calls=ledger.tool_calls,
            tokens=TokenTotals(
                input=totals.input,
                output=totals.output,
                cache_read=totals.cache_read,
                cache_write=totals.cache_write,
                reasoning=totals.reasoning,
                total=totals.total,
                effective=round(ledger.effective_tokens, 2),
            ),
            cost_usd=ledger.cost_usd,
            ai_credits=ledger.ai_credits,
            duration_ms=s.elapsed_ms,
            final_message=s.record.final_message,
            files=list(self.files),
            error=self.error,
            degraded=[d.subsystem for d in s.journal.degraded],
            structured_output=s.record.structured_output,
        )

    def to_json(self) -> dict[str, Any]:
        """The one object printed on stdout when the run ends."""
        return self.record().to_json()
