"""``aw-harness report PATH... [--json]``: one report over many runs' artifacts (docs/report.md).

Each PATH is a run's output folder, an artifact (folder or zip), or a folder of downloaded
artifacts (``locate.py``). Each artifact is read bounded and checked against its
``records.sha256`` (``read.py``); each run's figures are the ones it recorded (``runs.py``);
``summary.build`` adds them up, ``render.render_markdown`` writes the Markdown for
``GITHUB_STEP_SUMMARY``, ``--json`` prints the object itself. The action's ``mode: report`` is
``action_mode.py``.

Exit codes: 0 every artifact was read, 1 the report lists artifacts it could not read
(unreadable, inconsistent with their manifest, merged, of an older format), 2 a PATH does not
exist or the arguments are wrong (one line on stderr, never a traceback).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.harness.arguments import OneLineParser
from aw_action.report.locate import ReportInputError, locate
from aw_action.report.read import Entry, read_place
from aw_action.report.render import render_markdown
from aw_action.report.runs import DEFAULT_SERVER
from aw_action.report.summary import build

__all__ = ["ReportInputError", "main", "make_report", "render_markdown"]

USAGE = "aw-harness report PATH... [--json]"


def entries(paths: Iterable[Path], server: str) -> Iterator[Entry]:
    """Every run (or problem) under ``paths``, one artifact read at a time."""
    for place in locate(list(paths)):
        yield from read_place(place, server)


def make_report(paths: Iterable[Path], server: str = DEFAULT_SERVER) -> dict[str, Any]:
    """The report object over ``paths``; ``ReportInputError`` when a path does not exist."""
    return build(entries(paths, server))


def exit_code(report: dict[str, Any]) -> int:
    return 1 if report["counts"]["not_read"] else 0


def main(argv: list[str]) -> int:
    parser = OneLineParser(
        prog="aw-harness report",
        description="One report over many runs: their ends, figures, totals and medians.",
        usage_line=USAGE,
    )
    parser.add_argument(
        "paths",
        type=Path,
        nargs="+",
        metavar="PATH",
        help="run output folders, artifacts (folders or zips), or folders of downloaded artifacts",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        report = make_report(args.paths, RunnerFacts.read(os.environ).server)
    except ReportInputError as exc:
        sys.stderr.write(f"aw-harness report: error: {exc}\n")
        return 2
    for problem in report["problems"]:
        sys.stderr.write(f"aw-harness report: {problem['status']}: {problem['problem']}\n")
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_markdown(report))
    return exit_code(report)
