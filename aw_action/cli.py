"""The command line: ``aw-harness --config CONFIG --prompt PROMPT`` runs one session.

Subcommands (``aw-harness SUBCOMMAND ...``) are looked up in ``SUBCOMMANDS``; a bare
``--config/--prompt`` call always means "run". Exit codes: 0 clean completion, 1 session
failure, 2 invocation error. stdout carries exactly one JSON object (the run result);
everything else goes to stderr.

Stops (``run/cancel.py``): SIGINT, SIGTERM and SIGHUP end the run as ``cancelled`` and the run's
deadline as ``timeout``; either way the result is printed and the process exits within
``harness/supervisor.HARD_EXIT_S`` seconds, even when something in the run is stuck, and a second signal does not
change the exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from aw_action.github import credential_help
from aw_action.harness.invocation import Harness
from aw_action.harness.supervisor import run_and_print, stop_signals

SUBCOMMANDS: dict[str, str] = {
    "audit": "aw_action.audit:main",
    "action": "aw_action.action:main",
    "safe-output": "aw_action.safe_outputs.cli:main",
    "apply-safe-outputs": "aw_action.apply_outputs.apply_cli:main",
    "gh-aw": "aw_action.gh_aw_step:main",
}
"""Subcommand name -> ``module:function`` with signature ``main(argv: list[str]) -> int``.
Imported only when called, so a plain run never pays for them."""


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


def main(argv: Sequence[str] | None = None, *, guard_exit: bool = False) -> int:
    """Run the CLI. ``guard_exit`` (the console script, ``python -m``): once the result is printed
    the process ends within ``EXIT_GRACE_S`` seconds, even if a thread or task left behind by
    something stuck would keep it alive."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return run_subcommand(args[0], args[1:])
    stops = stop_signals()
    parsed = run_parser().parse_args(args)
    harness = Harness(parsed.config, parsed.prompt)
    harness.explain = lambda exc: credential_help.explain(exc, harness.env, action=False)
    return run_and_print(harness, stops, guard_exit=guard_exit)


def entrypoint() -> NoReturn:
    raise SystemExit(main(guard_exit=True))
