"""Modules a run's turns need and its first request does not, imported on a daemon thread once
the first request is out (``warm_up``, called by ``sdk_provider`` when the request is on the
wire): the wait for the model's answer then covers their import, instead of the first turn
paying it after the answer. Not earlier: the thread would take the interpreter from the work
that sends the first request (the start, bench/RESULTS.md).

``TURN_MODULES`` names them: the price catalog (genai-prices and its data, a large module read
when the first answer is priced: ~35 ms once the SDK is imported; ``ai/pricing.py`` prices each
answer) and jsonschema (about 30 ms; the first tool call's argument check,
``agent/tool_arguments.py``). Named as strings: nothing here depends on them,
and a module that fails to import shows where it is used.
"""

from __future__ import annotations

import contextlib
import importlib
import threading

TURN_MODULES = ("genai_prices", "genai_prices.data", "jsonschema.validators", "jsonschema.exceptions")
_started = threading.Event()


def warm_up() -> None:
    """Import ``TURN_MODULES`` on a daemon thread, once per process."""
    if _started.is_set():
        return
    _started.set()

    def load() -> None:
        for name in TURN_MODULES:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    threading.Thread(target=load, name="aw-warm-up", daemon=True).start()
