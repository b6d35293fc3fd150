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
import difflib
import importlib
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, cast

from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.harness.arguments import OneLineParser
from aw_action.harness.guards import harden_process
from aw_action.harness.invocation import Harness
from aw_action.harness.supervisor import run_and_print, stop_signals
from aw_action.run.collector import start_over
from aw_action.run.stop_hold import release
from aw_action.sinks.pretty import FORMATS, PrettyStream, wants_pretty

if TYPE_CHECKING:
    from aw_action.harness.continuation import Continuation

SUBCOMMANDS: dict[str, str] = {
    "audit": "aw_action.audit:main",
    "action": "aw_action.action:main",
    "safe-output": "aw_action.safe_outputs.cli:main",
    "apply-safe-outputs": "aw_action.apply_outputs.apply_cli:main",
    "gh-aw": "aw_action.gh_aw_step:main",
    "workflow": "aw_action.workflow_cli:main",
    "replay": "aw_action.replay_cli:main",
    "report": "aw_action.report:main",
}
"""Subcommand name -> ``module:function`` with signature ``main(argv: list[str]) -> int``.
Imported only when called, so a plain run never pays for them."""

SUBCOMMAND_HELP: dict[str, str] = {
    "audit": "report on a run's output folder or artifact zip (aw-harness audit DIR [--json])",
    "action": "the GitHub Action's entrypoint (inputs from INPUT_* variables)",
    "safe-output": "propose a GitHub write from inside a run (docs/safe-outputs.md)",
    "apply-safe-outputs": "apply a run's proposed writes, in a job with write access",
    "gh-aw": "run as the agent step of a compiled gh-aw workflow (docs/gh-aw.md)",
    "workflow": "run or resume a declarative multi-step workflow (docs/workflows.md)",
    "replay": "replay a recorded run from its records, with no model and no key (docs/replay.md)",
    "report": "one report over many runs' artifacts (aw-harness report PATH... [--json]; docs/report.md)",
}
"""One line per subcommand for ``--help`` (the same names as ``SUBCOMMANDS``)."""


STOP_SCHEME_SUBCOMMANDS = frozenset({"action", "gh-aw", "workflow", "replay"})
"""The subcommands that run under the stop scheme (``run/cancel.py``), like a plain run: they take
over a stop signal held during start-up. The others let it act as by default."""


def run_subcommand(name: str, argv: list[str]) -> int:
    if name not in STOP_SCHEME_SUBCOMMANDS:
        release()
        start_over()  # no agent runs: nothing to freeze for
    module_name, _, func = SUBCOMMANDS[name].partition(":")
    module = importlib.import_module(module_name)
    handler: Callable[[list[str]], int] = getattr(module, func)
    return handler(argv)


def run_parser() -> argparse.ArgumentParser:
    width = max(len(name) for name in SUBCOMMANDS)
    commands = "\n".join(f"  {name:<{width}}  {SUBCOMMAND_HELP.get(name, '')}" for name in SUBCOMMANDS)
    parser = OneLineParser(
        prog="aw-harness",
        usage="aw-harness --config CONFIG --prompt PROMPT\n       aw-harness SUBCOMMAND [ARGS ...]",
        usage_line="aw-harness --config CONFIG --prompt PROMPT",
        description="Run one agent session: one JSON result on stdout, JSONL records on stderr.",
        epilog=f"subcommands (aw-harness SUBCOMMAND --help for their options):\n{commands}\n\n"
        "exit codes: 0 completed, 1 session failure, 2 invocation error",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--config", required=True, type=Path, help="compiler-generated config.json")
    parser.add_argument("--prompt", required=True, type=Path, help="compiler-generated prompt.txt")
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="stderr for people (pretty) or machines (jsonl); auto: pretty on a terminal",
    )
    parser.add_argument(
        "--continue-from",
        type=Path,
        metavar="ARTIFACT",
        help="continue the conversation of an earlier run from its records (a folder or an artifact zip), "
        "with --prompt as the next message (docs/continue.md)",
    )
    parser.add_argument("--version", action=_PrintVersion, help="print the version and exit")
    return parser


def unknown_subcommand(word: str) -> str:
    """A first word that is no subcommand (a run takes only options): the nearest one by name."""
    likely = difflib.get_close_matches(word, list(SUBCOMMANDS), n=1, cutoff=0.6)
    hint = f"did you mean '{likely[0]}'?" if likely else f"the subcommands are {', '.join(SUBCOMMANDS)}"
    return f"unknown subcommand '{word}' ({hint})"


def version() -> str:
    """The installed package's version (``unknown`` when run from an uninstalled source tree).
    Read only when asked: ``importlib.metadata`` costs ~75 ms at start-up."""
    import importlib.metadata

    try:
        return importlib.metadata.version("aw-harness")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


class _PrintVersion(argparse.Action):
    """``--version``, looking the version up only when the flag is given."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> NoReturn:
        sys.stdout.write(f"aw-harness {version()}\n")
        parser.exit()


def main(argv: Sequence[str] | None = None, *, guard_exit: bool = False) -> int:
    """Run the CLI. ``guard_exit`` (the console script, ``python -m``): once the result is printed
    the process ends within ``EXIT_GRACE_S`` seconds, even if a thread or task left behind by
    something stuck would keep it alive."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return run_subcommand(args[0], args[1:])
    parser = run_parser()
    if args and not args[0].startswith("-"):
        parser.error(unknown_subcommand(args[0]))
    harden_process()
    stops = stop_signals()
    parsed = parser.parse_args(args)
    pretty = wants_pretty(parsed.format, sys.stderr)
    stream = cast(IO[str], PrettyStream(sys.stderr)) if pretty else None  # a text stream but for typeshed
    harness = Harness(parsed.config, parsed.prompt, stderr=stream, readable=pretty)
    harness.explain = lambda exc: _explain(exc, harness.runner_facts)
    if parsed.continue_from is not None:
        harness.continue_from = lambda: _continuation(parsed.continue_from)
    return run_and_print(harness, stops, guard_exit=guard_exit)


def _continuation(path: Path) -> Continuation:
    """The earlier run's conversation (its reader imported only when a run continues one)."""
    from aw_action.replay.continuation import read_continuation

    return read_continuation(path, "--continue-from")


def _explain(exc: InvocationError, runner: RunnerFacts) -> InvocationError:
    """A missing or refused credential said in a CLI user's terms (imported only on an error)."""
    from aw_action.github import credential_help

    return credential_help.explain(exc, runner, action=False)
