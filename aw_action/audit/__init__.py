"""``aw-harness audit PATH [--json]``: report on a finished run from its records.

PATH is a run's output dir, a downloaded artifact folder, or an artifact zip. It reads the
harness's own record files and gh-aw/AWF artifacts alike (gh-aw's collected unified session,
AWF's token-usage rows; ``sources.KNOWN_NAMES``). Exit codes: 0 report printed, 2 the path cannot be audited.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from aw_action.audit.render import render_text
from aw_action.audit.report import build_report
from aw_action.audit.sources import AuditInputError, open_artifact

__all__ = ["build_report", "main", "open_artifact"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="aw-harness audit", description="Report on a finished run.")
    parser.add_argument("path", type=Path, help="output dir, artifact folder or artifact zip")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    try:
        report = build_report(open_artifact(args.path))
    except AuditInputError as exc:
        sys.stderr.write(f"aw-harness audit: error: {exc}\n")
        return 2
    for entry in report["skipped"]:
        sys.stderr.write(
            f"aw-harness audit: warning: {entry['file']}: {entry['lines']} line(s) skipped (first: {entry['first']})\n"
        )
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)  # streamed: no second copy in memory
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(report))
    return 0
