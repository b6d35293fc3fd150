"""Running an invocation under the stop scheme (``run/cancel.py``), for the CLI and the action.

``supervise`` runs ``Harness.run()`` as a task and returns its result, or, when the task does not
wind down within ``wind_down_s`` of a stop (a signal or the deadline), what is known so far as a
``cancelled``/``timeout`` result. The deadline watchdog is armed as soon as the config is known:
it fires a little after the soft deadline at which steering stops the run itself, so it only
acts when the event loop could not (a blocked handler, a stuck setup).

``exit_soon`` bounds the last step: once the result is out, the process ends within a few
seconds even if a thread (a tool's, an exporter's) would keep the interpreter alive.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, TextIO

from aw_action.harness.invocation import Harness
from aw_action.run.cancel import CancelClock, StopSignals, settle
from aw_action.run.config import RunConfig
from aw_action.run.time_budget import TimeBudget, run_start
from aw_action.security.confinement.stdout_guard import reserved_stdout

if TYPE_CHECKING:
    from aw_action.run.result import RunResult

DEADLINE_GRACE_S = 1.0
"""How long after the soft deadline the watchdog waits for steering to stop the run itself."""
EXIT_GRACE_S = 2.0
WIND_DOWN_S = 4.0
"""After a stop, the run has this long to finish its records before it is abandoned."""
HARD_EXIT_S = 6.0
"""Past this (from the stop), the watchdog prints what is known and ends the process."""


def deadline_delay(config: RunConfig, started: float) -> float:
    """Seconds from now until the deadline watchdog fires (soft deadline plus a grace)."""
    settings = config.harness.steering
    budget = TimeBudget.from_minutes(
        config.timeout_minutes, settings.time_warning_minutes, settings.time_critical_minutes
    )
    grace = min(DEADLINE_GRACE_S, budget.margin_s / 2)
    return run_start(started) + budget.soft_deadline_s + grace - time.monotonic()


async def supervise(harness: Harness, stops: StopSignals, wind_down_s: float) -> RunResult:
    stops.bind(asyncio.get_running_loop(), harness.cancel)
    started = time.monotonic()
    harness.on_config = lambda config: stops.arm_deadline(deadline_delay(config, started))
    task = asyncio.create_task(harness.run())
    try:
        if not await settle(task, stops.clock, wind_down_s) or task.cancelled():
            return stuck_result(harness, stops.reason)
    finally:
        stops.disarm()
    exc = task.exception()
    if exc is not None:  # Harness.run() never raises; if a bug makes it, the record still gets out
        state = harness.state
        error = f"internal error: {type(exc).__name__}: {exc}"
        # when used, not at start (tests/cli/test_first_request_imports.py)
        from aw_action.run.result import RunResult

        return RunResult.ended("error", state.model if state else "unknown", state, error)
    return task.result()


def stuck_result(harness: Harness, reason: str) -> RunResult:
    """The outcome of a run that did not wind down in time after a stop: what is known so far
    (``Harness.end_unfinished``). Safe from the watchdog's thread; never raises."""
    what = "the deadline" if reason == "timeout" else "the cancel"
    return harness.end_unfinished(reason, f"the run did not stop in time after {what}")


def exit_soon(code: int, within_s: float = EXIT_GRACE_S) -> None:
    """End the process with ``code`` in ``within_s`` seconds unless it has ended by then. Out of
    threads (the PIDs the agent's processes share with the harness), the process ends as it
    would anyway: the result is out already, and no traceback follows it."""
    timer = threading.Timer(within_s, os._exit, args=(code,))
    timer.daemon = True
    try:
        timer.start()
    except RuntimeError:  # can't start new thread
        return


class ResultPrinter:
    """Prints the result object on stdout once: from the run, or from the watchdog's last words;
    then the run's closing line on stderr (``sinks/closing.py``: how it ended and why, the last
    line people read). ``stream`` is the reserved handle on the real stdout (``stdout_guard``),
    else ``sys.stdout``."""

    def __init__(self, harness: Harness, stream: TextIO | None = None) -> None:
        self.harness = harness
        self.stream = stream
        self._lock = threading.Lock()
        self.printed = False

    def print(self, result: RunResult) -> None:
        with self._lock:
            if self.printed:
                return
            self.printed = True
            payload = self.harness.redactor.obj(result.to_json())
            stream = self.stream or sys.stdout
            stream.write(json.dumps(payload, ensure_ascii=False) + "\n")
            stream.flush()
            # when used, not at start (tests/cli/test_first_request_imports.py)
            from aw_action.sinks.closing import closing_line

            self.harness.jsonl.line(closing_line(result, self.harness.reporting.audience))


def stop_signals() -> StopSignals:
    """The command line's stop scheme, installed at once (call it before reading any input)."""
    stops = StopSignals(CancelClock(), HARD_EXIT_S)
    stops.install()
    return stops


def run_and_print(harness: Harness, stops: StopSignals, *, guard_exit: bool = False) -> int:
    """Run ``harness`` under ``stops``, print its one result object, return the exit code.
    stdout is reserved for that object (``stdout_guard``): anything else printed meanwhile (an
    extension's ``print``, a child's output) goes to stderr, redacted.
    ``guard_exit`` (a process entry point): once the result is printed the process ends within
    ``EXIT_GRACE_S`` seconds, even if a thread or task left behind by something stuck would keep
    it alive."""
    with reserved_stdout(lambda line: harness.redactor.text(line)) as stdout:
        printer = ResultPrinter(harness, stdout)
        stops.last_words = lambda: printer.print(stuck_result(harness, stops.reason))

        async def run() -> int:
            result = await supervise(harness, stops, WIND_DOWN_S)
            printer.print(result)
            if guard_exit:
                exit_soon(result.exit_code)
            return result.exit_code

        return asyncio.run(run())
