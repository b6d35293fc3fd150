"""The run's deadline: ``timeout-minutes`` from the start, and the harness's own earlier stop.

The harness stops the run itself at a *soft deadline*, early enough to flush the summary, files
and uploads before the runner's step timeout could kill the process. The margin scales with the
run: the smaller of 30 s and 10 % of the timeout, so that a short run keeps most of its time and
still gets its warnings. Time notices are placed against the soft deadline (what the agent
really has); the 80/90/95/99 % ladder is a share of ``timeout-minutes``.

The run's clock starts when the process did, not when the harness got round to it: the runner
counts the step timeout from before the process existed, so the interpreter and import time
(about half a second) count too. A process much older than its run (a test runner, a service
embedding the harness) is not a CLI invocation; there the run's clock starts with the run.

``Clock`` is injectable so tests drive time by hand.
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Protocol

from aw_action.lazy_dataclass import dataclass

MAX_MARGIN_S = 30.0
MARGIN_FRACTION = 0.10
WARNING_CAP = 0.5
CRITICAL_CAP = 0.2
"""A run shorter than its warning windows gets them scaled: the warning at most half-way to the
soft deadline, the critical notice in at most its last fifth."""
STARTUP_WINDOW_S = 10.0
"""A process that started at most this long before its run is that run's CLI invocation."""


def process_age_s() -> float | None:
    """Seconds since this process started (Linux ``/proc``), or None where that is unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # the command name may hold spaces
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time since boot
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def run_start(state_start: float) -> float:
    """The monotonic time the run's ``timeout-minutes`` counts from (see the module docstring)."""
    age = process_age_s()
    if age is None:
        return state_start
    started = time.monotonic() - age
    return started if 0.0 <= state_start - started <= STARTUP_WINDOW_S else state_start


class Clock(Protocol):
    """Monotonic seconds and a sleep that follows the same time."""

    def now(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


@dataclass(frozen=True)
class TimeBudget:
    """Deadlines as offsets in seconds from the run's start."""

    timeout_s: float
    warning_s: float
    critical_s: float

    @classmethod
    def from_minutes(cls, timeout: float, warning: float, critical: float) -> TimeBudget:
        return cls(timeout * 60.0, warning * 60.0, critical * 60.0)

    @property
    def margin_s(self) -> float:
        return min(MAX_MARGIN_S, MARGIN_FRACTION * self.timeout_s)

    @property
    def soft_deadline_s(self) -> float:
        return self.timeout_s - self.margin_s

    @property
    def abort_percent(self) -> float:
        return self.percent(self.soft_deadline_s)

    def percent(self, elapsed_s: float) -> float:
        return 100.0 * elapsed_s / self.timeout_s

    def minutes_left(self, elapsed_s: float) -> float:
        """Minutes until the harness stops the run (the soft deadline)."""
        return max(0.0, (self.soft_deadline_s - elapsed_s) / 60.0)

    @property
    def warning_at_s(self) -> float:
        return self.soft_deadline_s - min(self.warning_s, WARNING_CAP * self.soft_deadline_s)

    @property
    def critical_at_s(self) -> float:
        return self.soft_deadline_s - min(self.critical_s, CRITICAL_CAP * self.soft_deadline_s)
