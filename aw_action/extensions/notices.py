"""The steering notice ladder: which resource notice the next model request carries.

A pure state machine (seed 003, AWF steering). For each notice type (``timeout``, ``ai_credit``,
``token``) there is a rung at 80, 90, 95 and 99 % of its limit, keeping only those below the
type's abort point, plus named rungs (the budget-warn-percent warning, the time warning and the
time-critical notice). Rules:

- a rung is *crossed* once the used percentage reaches it, and is delivered at most once;
- at most one notice goes out per model request;
- among pending rungs the highest threshold goes first; at the same threshold ``timeout`` before
  ``ai_credit`` before ``token``; lower rungs still go out later, one per request;
- when a named rung and a plain rung share a type and threshold they are one notice (the named
  text wins);
- the ``budget_final`` notice is not a rung of the ladder: steering sends it, once per type and
  before any other, when the cost tracker forecasts that the budget will not pay for the request
  after the next one (its threshold is the percentage used when it is sent).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import field, replace
from typing import Literal

from aw_action.lazy_dataclass import dataclass
from aw_action.run.budget_kinds import SteeringType
from aw_action.run.time_budget import TimeBudget

NoticeType = SteeringType
RungKind = Literal["ladder", "budget_warning", "budget_final", "time_warning", "time_critical"]

LADDER = (80, 90, 95, 99)
TYPE_ORDER: dict[str, int] = {"timeout": 0, "ai_credit": 1, "token": 2}
PREFIX = {"timeout": "[AWF TIME WARNING]", "ai_credit": "[AWF AI CREDIT WARNING]", "token": "[AWF TOKEN WARNING]"}
WHAT = {
    "timeout": "your allotted run time",
    "ai_credit": "your AI credit budget",
    "token": "your effective token budget",
}


@dataclass(frozen=True)
class Rung:
    """One notice: delivered once ``percent >= at_percent``; ``threshold`` is what gets recorded."""

    type: NoticeType
    threshold: int
    at_percent: float
    kind: RungKind = "ladder"

    @property
    def key(self) -> tuple[str, int]:
        return (self.type, self.threshold)

    @property
    def order(self) -> tuple[int, int]:
        return (-self.threshold, TYPE_ORDER[self.type])


def rungs_for(type_: NoticeType, abort_percent: float, named: Iterable[Rung] = ()) -> list[Rung]:
    """The ladder of one type: 80/90/95/99 and ``named`` rungs, all strictly below ``abort_percent``."""
    by_key: dict[tuple[str, int], Rung] = {}
    for threshold in LADDER:
        if threshold < abort_percent:
            by_key[(type_, threshold)] = Rung(type_, threshold, float(threshold))
    for rung in named:
        if rung.at_percent < abort_percent:
            by_key[rung.key] = rung
    return sorted(by_key.values(), key=lambda r: r.at_percent)


def named_rung(type_: NoticeType, at_percent: float, kind: RungKind) -> Rung:
    at = max(0.0, at_percent)
    return Rung(type_, math.floor(at), at, kind)


@dataclass
class NoticeLadder:
    rungs: list[Rung]
    crossed: set[tuple[str, int]] = field(default_factory=set)
    delivered: set[tuple[str, int]] = field(default_factory=set)

    def observe(self, type_: NoticeType, percent: float) -> list[Rung]:
        """Record that ``type_`` is at ``percent``; returns the rungs newly crossed."""
        new = [r for r in self.rungs if r.type == type_ and percent >= r.at_percent and r.key not in self.crossed]
        self.crossed.update(r.key for r in new)
        return new

    def pending(self) -> list[Rung]:
        keys = self.crossed - self.delivered
        return sorted((r for r in self.rungs if r.key in keys), key=lambda r: r.order)

    def take(self) -> Rung | None:
        """The next notice to deliver (marked delivered), or None."""
        pending = self.pending()
        if not pending:
            return None
        self.delivered.add(pending[0].key)
        return pending[0]


def _advice(threshold: float, type_: NoticeType) -> str:
    if threshold >= 99:
        return (
            "You are about to time out. Submit immediately."
            if type_ == "timeout"
            else ("You are about to be cut off. Submit immediately.")
        )
    if threshold >= 95:
        return "Finalize and submit your work now."
    if threshold >= 90:
        return "Complete your current task and prepare final output."
    if threshold >= 80:
        return "Begin planning to wrap up your current work."
    return "Be concise and begin planning to wrap up your current work."


def notice_text(rung: Rung, *, abort_percent: float | None = None, minutes_left: float | None = None) -> str:
    """The steering message for ``rung``, in AWF's style.

    ``abort_percent`` (budgets) tells the agent where the run is stopped; ``minutes_left`` is the
    time until the harness stops the run, used by the named time notices.
    """
    prefix = PREFIX[rung.type]
    if rung.kind in ("time_warning", "time_critical"):
        minutes = max(0, math.floor(minutes_left or 0.0))
        left = "less than 1 minute" if minutes < 1 else f"{minutes} minute{'s' if minutes != 1 else ''}"
        if rung.kind == "time_critical":
            return (
                f"{prefix} CRITICAL: {left} left before this run is stopped. "
                "Write your final output NOW and stop starting new work."
            )
        return f"{prefix} {left} left before this run is stopped. Begin wrapping up your current work."
    if rung.kind == "budget_final":
        text = (
            f"{prefix} You have used {rung.threshold}% of {WHAT[rung.type]}, and it is not expected to pay for "
            "another response after your next one. Finalize and submit your work in your next response."
        )
        return text
    text = f"{prefix} You have used {rung.threshold}% of {WHAT[rung.type]}. {_advice(rung.threshold, rung.type)}"
    if abort_percent is not None and rung.type != "timeout":
        text += f" The run is stopped at {abort_percent:g}%."
    return text


def time_rungs(budget: TimeBudget) -> list[Rung]:
    """The time ladder of ``budget``: 80/90/95/99 % of ``timeout-minutes`` below the soft deadline,
    the time warning and the time-critical notice; rungs past the critical one are critical."""
    critical = budget.percent(budget.critical_at_s)
    named = [
        named_rung("timeout", budget.percent(budget.warning_at_s), "time_warning"),
        named_rung("timeout", critical, "time_critical"),
    ]  # at a shared threshold the later (critical) rung replaces the warning
    return [
        replace(r, kind="time_critical") if r.kind == "ladder" and r.at_percent > critical else r
        for r in rungs_for("timeout", budget.abort_percent, named)
    ]
