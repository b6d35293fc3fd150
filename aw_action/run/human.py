"""Figures in the units people read: ``26 s``, ``4 min 05 s``, ``$0.34``, ``3 turns``.

One place for how the summary, the explanations, the log's closing line and the progress
comment say a duration, a cost, a count or a budget amount, so the same figure reads the same
everywhere. Every function returns plain text (no Markdown).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aw_action.run.budget_kinds import BudgetKind


def duration(seconds: float | None) -> str:
    """``0.4 s`` and ``9.8 s`` under ten seconds, ``26 s`` under a minute, ``4 min 05 s`` under an
    hour, ``1 h 02 min`` beyond; ``–`` when unknown."""
    if seconds is None:
        return "–"
    seconds = max(float(seconds), 0.0)
    if seconds < 9.95:
        return f"{seconds:.1f} s"
    if seconds < 59.5:
        return f"{round(seconds)} s"
    whole = round(seconds)
    if whole < 3600:
        minutes, secs = divmod(whole, 60)
        return f"{minutes} min {secs:02d} s"
    hours, rest = divmod(whole, 3600)
    return f"{hours} h {rest // 60:02d} min"


def minutes(value: float | None) -> str:
    """A limit given in minutes, as people set it (``0.5 min``, ``20 min``)."""
    return "–" if value is None else f"{value:g} min"


def usd(cost: float | None) -> str:
    """``$0.34``; ``<$0.01`` for a cost under a cent that is not nothing; ``cost unknown``."""
    if cost is None:
        return "cost unknown"
    if 0 < cost < 0.005:
        return "<$0.01"
    return f"${cost:,.2f}"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``1 turn``, ``3 turns``, ``1,204 tool calls``."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def number(value: float | None, decimals: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value:,.{decimals}f}" if decimals else f"{round(value):,}"


def amount(kind: BudgetKind, value: float | None) -> str:
    """A budget figure: a duration for the time budget (its value is minutes), else the kind's
    number (whole units, or its decimals: credits to two places)."""
    if value is None:
        return "–"
    if kind.gate == "deadline":
        return duration(value * 60.0)
    return number(value, kind.decimals)


def limit(kind: BudgetKind, value: float | None) -> str:
    """A budget's limit as it was set: minutes for the time budget (``0.5 min``), else ``amount``."""
    return minutes(value) if kind.gate == "deadline" else amount(kind, value)


def percent(used: float | None, limit: float | None) -> str:
    if used is None or not limit:
        return "–"
    return f"{100.0 * used / limit:.0f}%" if used / limit >= 0.1 else f"{100.0 * used / limit:.1f}%"
