"""The process entry: ``aw-harness`` (the console script) and ``python -m aw_action``.

The order is the contract: first the working directory leaves ``sys.path`` (nothing may be
imported from the checked-out workspace, not even the standard library's pure-Python modules),
then a stop signal is held (``run/stop_hold``) and the cyclic garbage collector is off
(``run/collector``) while the harness imports, then the command line runs, then the process ends
at once (``end_process``).
"""

from aw_action.security.confinement.safe_path import drop_unsafe_path

drop_unsafe_path()

import atexit  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
from typing import NoReturn  # noqa: E402

from aw_action.run.collector import hold_during_start  # noqa: E402
from aw_action.run.stop_hold import hold  # noqa: E402

FLUSH_FAILED_EXIT = 120
"""What CPython exits with when it cannot flush stdout at exit, kept for ``end_process``."""


def entrypoint() -> NoReturn:
    hold()
    hold_during_start()
    from aw_action.cli import main

    end_process(main(guard_exit=True))


def end_process(code: int) -> NoReturn:
    """End the process with ``code`` once everything an interpreter's exit promises is done, in
    its order: non-daemon threads joined, ``atexit`` handlers run (logging's and OpenTelemetry's
    flushes, an extension's own), stdout and stderr flushed; then ``os._exit``.

    What is skipped is the interpreter tearing down its ~4,000 modules and their objects, which
    took 0.2-0.4 s after every run (1.2-1.5 s under load) and does nothing a run needs: every
    record is written with ``os.write`` or a closed file by then (``run/record_table.py``).
    A file an extension leaves open and unflushed is no longer flushed by that teardown (nor is
    it in Node, where Pi's extensions run): an extension closes its files in ``session_shutdown``.
    A thread that never ends is still cut off by ``exit_soon`` (``harness/supervisor.py``)."""
    threading_shutdown = getattr(threading, "_shutdown", None)
    if threading_shutdown is not None:
        threading_shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            if stream is sys.stdout and code == 0:
                code = FLUSH_FAILED_EXIT
    os._exit(code)
