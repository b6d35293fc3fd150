"""The run's journal: warnings, degraded subsystems, delivered steering notices and the budget
stop, each added through one method.

Owners: anyone may ``warn`` and ``degrade`` (extensions, the runner, the loader, sinks);
steering alone calls ``record_notice``; the cost tracker alone calls ``record_budget_stop``.

``warn`` is the one way a warning enters a run: it is kept here and handed to ``announce``,
which the harness points at the run's event stream (queued behind the event being dispatched
once a session runs, written at once before that). A sink reporting its own failure passes
``announce=False`` and writes the record itself, because it may be the stream that failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any

from aw_action.lazy_dataclass import dataclass

Announce = Callable[[str, dict[str, Any]], None]


@dataclass(frozen=True)
class Degradation:
    """A subsystem that failed without failing the run; shown in the summary's notice."""

    subsystem: str
    detail: str
    hint: str


@dataclass
class Journal:
    warnings: list[str] = field(default_factory=list)
    degraded: list[Degradation] = field(default_factory=list)
    steering_notices: list[dict[str, Any]] = field(default_factory=list)
    budget_exceeded: dict[str, Any] | None = None
    """The first hard budget stop (``{budget, reason, used, limit, ...}``), if any."""
    announce: Announce | None = None

    def warn(self, message: str, *, announce: bool = True, **fields: Any) -> None:
        self.warnings.append(message)
        if announce and self.announce is not None:
            self.announce(message, fields)

    def warned(self, message: str) -> bool:
        return message in self.warnings

    def degrade(self, subsystem: str, detail: str, hint: str) -> None:
        if not any(d.subsystem == subsystem and d.detail == detail for d in self.degraded):
            self.degraded.append(Degradation(subsystem, detail, hint))

    def record_notice(self, notice: dict[str, Any]) -> None:
        self.steering_notices.append(dict(notice))

    def record_budget_stop(self, record: dict[str, Any]) -> bool:
        """Keeps the first budget stop; False (and nothing changes) for any later one."""
        if self.budget_exceeded is not None:
            return False
        self.budget_exceeded = dict(record)
        return True
