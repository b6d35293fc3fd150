"""Cancellation timing: the runner's stop sequence, and waits that respect it.

On cancel or step timeout the runner sends SIGINT to the container's PID 1, SIGTERM 7.5 s later
and kills about 2.5 s after that (actions/runner ``ProcessInvoker``). So from the first signal
the action has a fixed budget: the run winds down, outputs are written, artifacts go up, and the
process exits, all well inside 7.5 s. ``CancelClock`` records the first signal; ``settle`` waits
for a task until it is done or its share of the budget is spent; the watchdog ends the process
if something still blocks (a thread that cannot be cancelled) when the budget is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import time
from typing import Any


class CancelClock:
    def __init__(self) -> None:
        self.signalled_at: float | None = None
        self._event = asyncio.Event()
        self._watchdog: threading.Timer | None = None

    @property
    def cancelled(self) -> bool:
        return self.signalled_at is not None

    def signal(self) -> None:
        if self.signalled_at is None:
            self.signalled_at = time.monotonic()
        self._event.set()

    def remaining(self, budget_s: float) -> float | None:
        """Seconds left of ``budget_s`` counted from the first signal; None before any signal."""
        if self.signalled_at is None:
            return None
        return max(0.0, budget_s - (time.monotonic() - self.signalled_at))

    async def wait(self) -> None:
        await self._event.wait()

    def arm_watchdog(self, seconds: float, exit_code: int = 1) -> None:
        """Hard exit ``seconds`` from now unless the process ended first (daemon thread)."""
        if self._watchdog is not None:
            return

        def fire() -> None:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(exit_code)

        self._watchdog = threading.Timer(seconds, fire)
        self._watchdog.daemon = True
        self._watchdog.start()


async def settle(task: asyncio.Task[Any], clock: CancelClock, budget_s: float) -> bool:
    """Waits for ``task``; once a signal has arrived, at most until ``budget_s`` after it.
    Returns True when the task finished (with a result or an exception), False when it was
    cancelled for running out of time."""
    if not clock.cancelled:
        waiter = asyncio.ensure_future(clock.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
    if not task.done():
        await asyncio.wait({task}, timeout=clock.remaining(budget_s))
    if task.done():
        return True
    task.cancel()
    await asyncio.wait({task}, timeout=0.5)
    return False


class EarlySignals:
    """Catches SIGINT/SIGTERM before the event loop exists (while inputs are read), so a cancel
    that arrives that early still ends the run cleanly instead of killing the process."""

    def __init__(self) -> None:
        self.fired = False

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(ValueError, OSError):
                signal.signal(sig, self._handle)

    def _handle(self, signum: int, frame: Any) -> None:
        self.fired = True
