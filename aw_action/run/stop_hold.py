"""A stop signal that comes while the process is still starting is held, not fatal.

Importing the harness takes a few hundred milliseconds before ``StopSignals.install`` runs; a
runner's cancel (SIGINT) or a closing terminal (SIGHUP) in that window would otherwise end the
process with the signal's default action: no result object, no records, exit code lost. The
entry points call ``hold`` first thing (standard library only, nothing else imported), and
``StopSignals.install`` takes a held stop over as its first one, with the time it came; a command
that runs without the stop scheme (``audit``, ``safe-output``, ``apply-safe-outputs``) calls
``release`` instead.
"""

from __future__ import annotations

import contextlib
import signal
import time
from typing import Any

HELD_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))

_first_stop_at: float | None = None
_first_signum: int | None = None


def hold() -> None:
    """From now until ``StopSignals.install`` replaces them, a stop signal is only noted."""
    for sig in HELD_SIGNALS:
        with contextlib.suppress(ValueError, OSError):  # not the main thread: nothing to hold
            signal.signal(sig, _note)


def _note(signum: int, frame: Any) -> None:
    global _first_stop_at, _first_signum
    if _first_stop_at is None:
        _first_stop_at, _first_signum = time.monotonic(), signum


def release() -> None:
    """For a command that runs without the stop scheme: the stop signals act as by default again,
    and one that was held takes effect now (the process ends as it would have)."""
    for sig in HELD_SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, signal.SIG_DFL)
    if _first_signum is not None:
        signal.raise_signal(_first_signum)


def held_stop() -> float | None:
    """When (``time.monotonic``) the first held stop signal came; None if none did."""
    return _first_stop_at
