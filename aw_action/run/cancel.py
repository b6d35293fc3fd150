"""Stopping a run: the one scheme for signals and the deadline, in the CLI and the action alike.

On cancel or step timeout the runner sends SIGINT to the container's PID 1, SIGTERM 7.5 s later
and kills about 2.5 s after that (actions/runner ``ProcessInvoker``); a terminal that closes sends
SIGHUP. So from the first stop the process has a fixed budget: the run winds down, records and
outputs are written, artifacts go up, and the process exits, all well inside 7.5 s.

- ``CancelClock`` records when the first stop arrived and wakes waiters on the event loop.
- ``StopSignals`` installs SIGINT/SIGTERM/SIGHUP handlers first thing (before any input is read;
  one that came while the process was importing was held by ``stop_hold`` and counts as the first)
  with ``signal.signal``, not ``loop.add_signal_handler``: a Python-level handler runs even while
  the loop is blocked by synchronous code (a stuck extension), so the first signal always arms
  the watchdog. The handler hands the stop to the loop with ``call_soon_threadsafe``. A second
  signal only repeats the request: it never changes the exit code. The handlers hold until the
  interpreter's exit functions have run; then the stop signals are ignored
  (``ignore_stop_signals``): CPython's finalisation puts every Python-handled signal back to its
  default action (terminate) before it tears its modules down, which takes up to a second, so a
  second signal in that window would kill the process after its result was out, its exit code
  lost. An ignored signal is the one disposition the finalisation leaves alone.
- ``arm_deadline`` does the same from a timer thread when the run's deadline passes, with the
  reason ``timeout``: the deadline holds even when the event loop is blocked.
- The watchdog says its last words (the result, fallback outputs) and ends the process if
  anything still blocks when the budget is spent.
- ``settle`` waits for a task until it is done, its share of the budget is spent, or its own
  time limit (if any) is up.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from aw_action.run.stop_hold import held_stop

LAST_WORDS_S = 0.3
"""How long the watchdog waits for the fallback outputs before it ends the process."""


class CancelClock:
    def __init__(self) -> None:
        self.signalled_at: float | None = None
        self._event = asyncio.Event()

    @property
    def cancelled(self) -> bool:
        return self.signalled_at is not None

    def mark(self) -> bool:
        """Records the first signal's time (safe in a signal handler); True the first time."""
        if self.signalled_at is not None:
            return False
        self.signalled_at = time.monotonic()
        return True

    def notify(self) -> None:
        """Wakes ``wait()``ers; call on the event loop's thread."""
        self.mark()
        self._event.set()

    def remaining(self, budget_s: float) -> float | None:
        """Seconds left of ``budget_s`` counted from the first signal; None before any signal."""
        if self.signalled_at is None:
            return None
        return max(0.0, budget_s - (time.monotonic() - self.signalled_at))

    async def wait(self) -> None:
        await self._event.wait()


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def ignore_stop_signals() -> None:
    """From now on no stop signal reaches the process: its exit code is settled (an exit function,
    registered by ``StopSignals.install``)."""
    for sig in STOP_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_IGN)


class StopSignals:
    def __init__(self, clock: CancelClock, hard_exit_s: float, exit_code: int = 1) -> None:
        self.clock = clock
        self.hard_exit_s = hard_exit_s
        self.exit_code = exit_code
        self.reason = "cancelled"
        """Why the run is stopping: ``cancelled`` (a signal) or ``timeout`` (the deadline)."""
        self.last_words: Callable[[], None] = lambda: None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._on_stop: Callable[[str], None] = lambda reason: None
        self._watchdog: threading.Timer | None = None
        self._deadline: threading.Timer | None = None

    def install(self) -> None:
        """Handle the stop signals from now on, until the interpreter's exit functions have run."""
        for sig in STOP_SIGNALS:
            with contextlib.suppress(ValueError, OSError):
                signal.signal(sig, self._handle)
        atexit.unregister(ignore_stop_signals)
        atexit.register(ignore_stop_signals)
        held_at = held_stop()
        if held_at is not None and not self.clock.cancelled:  # came while the process was starting
            self.clock.signalled_at = held_at
            self._arm_watchdog(self.hard_exit_s - (time.monotonic() - held_at))

    def bind(self, loop: asyncio.AbstractEventLoop, on_stop: Callable[[str], None]) -> None:
        """From now on a stop calls ``on_stop(reason)`` on ``loop``; one that came earlier does so now."""
        self._loop, self._on_stop = loop, on_stop
        if self.clock.cancelled:
            loop.call_soon(self._fire)

    def arm_deadline(self, delay_s: float) -> None:
        """Stop the run with reason ``timeout`` ``delay_s`` seconds from now, from a timer thread.
        A delay beyond what a timer can wait (``threading.TIMEOUT_MAX``, about 292 years; a larger
        or non-finite one would kill the timer thread and drop the deadline) waits that long."""
        if self._deadline is not None:
            self._deadline.cancel()
        delay = min(delay_s, threading.TIMEOUT_MAX) if delay_s == delay_s else 0.0  # NaN: no wait at all
        self._deadline = threading.Timer(max(0.0, delay), self.trigger, args=("timeout",))
        self._deadline.daemon = True
        self._deadline.start()

    def disarm(self) -> None:
        """The run has ended: no deadline fires any more (a signal still does)."""
        if self._deadline is not None:
            self._deadline.cancel()

    def _handle(self, signum: int, frame: Any) -> None:
        self.trigger("cancelled")

    def trigger(self, reason: str) -> None:
        """Start the stop sequence (safe from a signal handler and from any thread); only the
        first stop sets the reason and arms the watchdog."""
        if self.clock.mark():
            self.reason = reason
            self._arm_watchdog()
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # loop already closed: nothing left to stop
                self._loop.call_soon_threadsafe(self._fire)

    def _say_last_words(self) -> None:
        with contextlib.suppress(Exception):
            self.last_words()

    def _fire(self) -> None:
        self.clock.notify()
        self._on_stop(self.reason)

    def _arm_watchdog(self, after_s: float | None = None) -> None:
        def fire() -> None:
            # Last words get a short, bounded moment: if they block too (a stuck stream, a lock
            # held by the stuck thread), the process still ends.
            speaker = threading.Thread(target=self._say_last_words, daemon=True)
            speaker.start()
            speaker.join(timeout=LAST_WORDS_S)
            os._exit(self.exit_code)

        self._watchdog = threading.Timer(max(0.0, self.hard_exit_s if after_s is None else after_s), fire)
        self._watchdog.daemon = True
        self._watchdog.start()


async def settle(task: asyncio.Task[Any], clock: CancelClock, budget_s: float, limit_s: float | None = None) -> bool:
    """Waits for ``task``: at most ``limit_s`` in all (None: no limit) and, once a signal has
    arrived, at most until ``budget_s`` after it. Returns True when the task finished (with a
    result or an exception), False when it was cancelled for running out of time."""
    loop = asyncio.get_running_loop()
    started = loop.time()
    if not clock.cancelled:
        waiter = asyncio.ensure_future(clock.wait())
        await asyncio.wait({task, waiter}, timeout=limit_s, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
    if not task.done() and clock.cancelled:
        timeout = clock.remaining(budget_s)
        if limit_s is not None and timeout is not None:
            timeout = min(timeout, max(0.0, limit_s - (loop.time() - started)))
        await asyncio.wait({task}, timeout=timeout)
    if task.done():
        return True
    task.cancel()
    await asyncio.wait({task}, timeout=0.5)
    return False
