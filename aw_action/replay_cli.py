"""``aw-harness replay RECORDS``: a recorded run again, on this machine, with no model and no key
(docs/replay.md).

    aw-harness replay RECORDS [--workspace DIR] [--until TURN] [--continue --model MODEL]
                              [--output-dir DIR] [--format F]

RECORDS is a run's output folder, or its artifact (the folder ``gh run download`` makes, or the
zip the run's page serves). The recorded replies are played back while the tool calls run for
real in the workspace (default: the current directory), under the recorded run's policies and
sandbox; each result is compared with the recorded one. ``--until TURN`` stops before that turn;
``--continue --model MODEL`` then goes on live. The replay's own records go to ``--output-dir``
(else ``AW_OUTPUT_DIR``, else a folder in the system's temp dir), never over the recording.

stdout carries one JSON object (``replay/report.py``); stderr the run's JSONL stream (pretty on a
terminal), then the verdict and, when the replay diverged, the diff. Exit 0 when the run replays
the same (or paused at ``--until``), 1 at the first difference (or the live run's failure), 2
when the records or the arguments are refused (the file and the reason), never a traceback.
The stop scheme is the CLI's (signals, the recorded run's deadline).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
from pathlib import Path
from typing import IO, Any, TextIO, cast

from aw_action.environment.runner import RunnerFacts
from aw_action.environment.tuning import OUTPUT_DIR
from aw_action.exits import InvocationError
from aw_action.harness.arguments import OneLineParser
from aw_action.harness.guards import harden_process
from aw_action.harness.supervisor import WIND_DOWN_S, stop_signals, stuck_result, supervise
from aw_action.replay.prepare import prepare
from aw_action.replay.report import people_lines, report_object
from aw_action.replay.runner import ReplayHarness
from aw_action.run.cancel import StopSignals
from aw_action.run.redact import run_redactor
from aw_action.security.confinement.stdout_guard import reserved_stdout
from aw_action.sinks.pretty import FORMATS, PrettyStream, wants_pretty

USAGE = "aw-harness replay RECORDS [--workspace DIR] [--until TURN] [--continue --model MODEL] [--output-dir DIR]"


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="aw-harness replay",
        description="Replay a recorded run: its model replies played back, its tool calls run again here.",
        usage_line=USAGE,
    )
    p.add_argument(
        "records", type=Path, metavar="RECORDS", help="the run's output folder, or its artifact (folder or zip)"
    )
    p.add_argument(
        "--workspace", type=Path, metavar="DIR", help="where the tool calls run (default: the current directory)"
    )
    p.add_argument("--until", type=int, metavar="TURN", help="stop before this turn, the workspace as it was then")
    p.add_argument("--continue", dest="go_on", action="store_true", help="then go on live with --model")
    p.add_argument("--model", metavar="MODEL", help="the live model for --continue (its key from the environment)")
    p.add_argument(
        "--output-dir",
        type=Path,
        metavar="DIR",
        help=f"the replay's own records (default: {OUTPUT_DIR.name} or a temp dir)",
    )
    p.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="stderr for people (pretty) or machines (jsonl); auto: pretty on a terminal",
    )
    return p


def main(argv: list[str]) -> int:
    harden_process()
    stops = stop_signals()
    args = parser().parse_args(argv)
    env = dict(os.environ)
    workspace = args.workspace or Path(os.getcwd())
    try:
        recording, options = prepare(
            args.records,
            workspace=workspace,
            env=env,
            runner=RunnerFacts.read(env),  # the command's one read (the harness reads its own environment's)
            output_dir=args.output_dir,
            until=args.until,
            model=args.model,
            go_on=args.go_on,
        )
        pretty = wants_pretty(args.format, sys.stderr)
        stream = cast(IO[str], PrettyStream(sys.stderr)) if pretty else None  # a text stream but for typeshed
        harness = ReplayHarness(recording, options, env, stderr=stream, readable=pretty)
    except InvocationError as exc:
        report = report_object(None, None, None, None, str(exc))
        scrub = run_redactor(env).text
        sys.stderr.write(scrub(f"aw-harness replay: error: {exc}") + "\n")
        sys.stdout.write(scrub(json.dumps(report, ensure_ascii=False)) + "\n")
        return 2
    return run_and_report(harness, stops)


def run_and_report(harness: ReplayHarness, stops: StopSignals) -> int:
    """Run the replay under ``stops``; print its report once (from the run, or from the
    watchdog's last words); return its exit code."""
    with reserved_stdout(harness.redactor.text) as stdout:
        printed = threading.Lock()

        def emit(report: dict[str, Any], out: TextIO = stdout) -> None:
            if not printed.acquire(blocking=False):
                return
            for line in people_lines(report):
                harness.jsonl.line(line)
            out.write(json.dumps(harness.redactor.obj(report), ensure_ascii=False) + "\n")
            out.flush()

        def last_words() -> None:
            result = stuck_result(harness, stops.reason)
            emit(report_object(None, harness.recording, result, harness.output_dir))

        stops.last_words = last_words

        async def run() -> int:
            result = await supervise(harness, stops, WIND_DOWN_S)
            report = report_object(harness.verdict, harness.recording, result, harness.output_dir)
            emit(report)
            return int(report["exit_code"])

        return asyncio.run(run())
