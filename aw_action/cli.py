"""The command line: ``aw-harness --config CONFIG --prompt PROMPT`` runs one session.

Subcommands (``aw-harness SUBCOMMAND ...``) are looked up in ``SUBCOMMANDS``; a bare
``--config/--prompt`` call always means "run". Exit codes: 0 clean completion, 1 session
failure, 2 invocation error. stdout carries exactly one JSON object (the run result);
everything else goes to stderr.

Stops (``run/cancel.py``): SIGINT, SIGTERM and SIGHUP end the run as ``cancelled`` and the run's
deadline as ``timeout``; either way the result is printed and the process exits within
``HARD_EXIT_S`` seconds, even when something in the run is stuck, and a second signal does not
change the exit code.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from aw_action.harness.invocation import Harness
from aw_action.harness.supervisor import exit_soon, stuck_result, supervise
from aw_action.run.cancel import CancelClock, StopSignals
from aw_action.run.result import RunResult

SUBCOMMANDS: dict[str, str] = {
    "audit": "aw_action.audit:main",
    "action": "aw_action.action:main",
    "safe-output": "aw_action.safe_outputs.cli:main",
    "apply-safe-outputs": "aw_action.apply_outputs.apply_cli:main",
}
"""Subcommand name -> ``module:function`` with signature ``main(argv: list[str]) -> int``.
Imported only when called, so a plain run never pays for them."""

WIND_DOWN_S = 4.0
"""After a stop, the run has this long to finish its records before it is abandoned."""
HARD_EXIT_S = 6.0
"""Past this (from the stop), the watchdog prints what is known and ends the process."""


def run_subcommand(name: str, argv: list[str]) -> int:
    module_name, _, func = SUBCOMMANDS[name].partition(":")
    module = importlib.import_module(module_name)
    handler: Callable[[list[str]], int] = getattr(module, func)
    return handler(argv)


class _OneLineParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"aw-harness: error: {message} (usage: aw-harness --config CONFIG --prompt PROMPT)\n")
        raise SystemExit(2)


def run_parser() -> argparse.ArgumentParser:
    parser = _OneLineParser(prog="aw-harness", description="Run one agent session.")
    parser.add_argument("--config", required=True, type=Path, help="compiler-generated config.json")
    parser.add_argument("--prompt", required=True, type=Path, help="compiler-generated prompt.txt")
    return parser


class ResultPrinter:
    """Prints the result object once: from the run, or from the watchdog's last words."""

    def __init__(self, harness: Harness) -> None:
        self.harness = harness
        self._lock = threading.Lock()
        self.printed = False

    def print(self, result: RunResult) -> None:
        with self._lock:
            if self.printed:
                return
            self.printed = True
            payload = self.harness.redactor.obj(result.to_json())
            sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
            sys.stdout.flush()


def main(argv: Sequence[str] | None = None, *, guard_exit: bool = False) -> int:
    """Run the CLI. ``guard_exit`` (the console script, ``python -m``): once the result is printed
    the process ends within ``EXIT_GRACE_S`` seconds, even if a thread or task left behind by
    something stuck would keep it alive."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return run_subcommand(args[0], args[1:])
    stops = StopSignals(CancelClock(), HARD_EXIT_S)
    stops.install()
    parsed = run_parser().parse_args(args)
    harness = Harness(parsed.config, parsed.prompt)
    printer = ResultPrinter(harness)
    stops.last_words = lambda: printer.print(stuck_result(harness, stops.reason))

    async def run() -> int:
        result = await supervise(harness, stops, WIND_DOWN_S)
        printer.print(result)
        if guard_exit:
            exit_soon(result.exit_code)
        return result.exit_code

    return asyncio.run(run())


def entrypoint() -> NoReturn:
    raise SystemExit(main(guard_exit=True))
