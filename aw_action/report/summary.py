"""The report over many runs: totals, medians, counts, as one JSON-ready object.

``build(entries)`` is the one shape both outputs render (``--json`` prints it, ``render.py``
turns it into Markdown). Runs that failed or stopped come first (then by artifact name), each
with the explanation it recorded; what could not be read is listed under ``problems`` with its
status. A total sums the runs that recorded the figure; ``unknown`` counts those that did not
(a cost is unknown when a model's price is), so a total is never a guess.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from aw_action.report.runs import Problem, RunFacts

FIGURES = ("turns", "tool_calls", "tokens", "effective_tokens", "cost_usd", "duration_ms")
"""The per-run figures that are summed and whose median is taken, in the order they are shown."""


def ordered(runs: Iterable[RunFacts]) -> list[RunFacts]:
    """Failed or stopped runs first, then by artifact name."""
    return sorted(runs, key=lambda run: (run.succeeded, run.artifact))


def _figure(runs: list[RunFacts], name: str) -> dict[str, Any]:
    known = [float(value) for run in runs if (value := getattr(run, name)) is not None]
    total = sum(known)
    whole = name in ("turns", "tool_calls", "tokens")
    return {
        "total": int(total) if whole else round(total, 6),
        "median": statistics.median(known) if known else None,
        "unknown": len(runs) - len(known),
    }


def build(entries: Iterable[RunFacts | Problem]) -> dict[str, Any]:
    items = list(entries)
    runs = ordered(e for e in items if isinstance(e, RunFacts))
    problems = [e for e in items if isinstance(e, Problem)]
    return {
        "counts": {
            "artifacts": len(runs) + len(problems),
            "runs": len(runs),
            "succeeded": sum(run.succeeded for run in runs),
            "failed_or_stopped": sum(not run.succeeded for run in runs),
            "not_read": len(problems),
            "by_conclusion": dict(Counter(run.conclusion for run in runs).most_common()),
            "by_stop_reason": dict(Counter(run.stop_reason for run in runs).most_common()),
            "by_problem": dict(Counter(p.status for p in problems).most_common()),
        },
        "figures": {name: _figure(runs, name) for name in FIGURES},
        "runs": [asdict(run) for run in runs],
        "problems": [asdict(p) for p in sorted(problems, key=lambda p: p.artifact)],
    }
