"""The command line: ``aw-harness --config CONFIG --prompt PROMPT`` runs one session.

Subcommands (``aw-harness SUBCOMMAND ...``) are looked up in ``SUBCOMMANDS``; a bare
``--config/--prompt`` call always means "run". Exit codes: 0 clean completion, 1 session
failure, 2 invocation error. stdout carries exactly one JSON object (the run result);
everything else goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import signal
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from aw_action.harness import Harness, RunResult

SUBCOMMANDS: dict[str, str] = {
    "audit": "aw_action.audit:main",
    "action": "aw_action.action:main",
    "gh-aw": "aw_action.ghaw.command:main",  # issue 12: the run inside a gh-aw agent step (gh-aw/aw-harness.md)
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


def install_signal_handlers(loop: asyncio.AbstractEventLoop, cancel: Callable[[], None]) -> None:
    """SIGINT and SIGTERM stop the run cleanly (the runner sends SIGINT, then SIGTERM 7.5 s later)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, cancel)


async def run_async(harness: Harness) -> RunResult:
    install_signal_handlers(asyncio.get_running_loop(), lambda: harness.cancel("cancelled"))
    return await harness.run()


def print_result(result: RunResult, harness: Harness) -> None:
    payload = harness.redactor.obj(result.to_json())
    sys.stdout.write(json.dumps(payload, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return run_subcommand(args[0], args[1:])
    parsed = run_parser().parse_args(args)
    harness = Harness(parsed.config, parsed.prompt)
    result = asyncio.run(run_async(harness))
    print_result(result, harness)
    return result.exit_code


def entrypoint() -> NoReturn:
    raise SystemExit(main())
