"""The cyclic garbage collector's schedule over a process's life (issue 36, bench/PROFILE.md).

A run's start creates about 200,000 objects that live until the process ends (the SDK's and the
harness's modules, classes and pydantic models). Collected as usual, they cost three full
collections during the start (~170 ms on a quiet machine, more than the harness's own imports)
and are walked again by every full collection of the turns, while none of them is garbage.

So the entry point (``launch.entrypoint``) turns the collector off before the harness imports
(``hold_during_start``), and the start ends (``start_over``: the run assembled, its SDK imported,
before the first request; or a subcommand that runs no agent, at once) by moving everything
alive into the permanent generation (``gc.freeze``) and turning the collector back on. What the
turns make is collected as before; reference counting frees everything else as it always does.
Library callers (the tests, an embedding program) never call ``hold_during_start``, and
``start_over`` then changes nothing: the collector is left as the caller set it.
"""

from __future__ import annotations

import gc

_held = False


def hold_during_start() -> None:
    """Turn the cyclic collector off until ``start_over`` (a process entry point calls it first)."""
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True


def start_over() -> None:
    """The start is over: what is alive stays (frozen out of collections), collection resumes.
    Idempotent; nothing happens unless ``hold_during_start`` turned the collector off."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()
