"""The report as GitHub-flavoured Markdown, for ``GITHUB_STEP_SUMMARY`` (and a terminal).

First screen: how many runs, how they ended, what they cost and took; then the runs that
failed or stopped, each with the explanation it recorded; then what could not be read; the
totals and medians; the charts (Mermaid, which GitHub renders in a step summary:
``sinks/mermaid.py``); every run, numbered as the charts number them. Every value that came from
an artifact (names, models, stop reasons, explanations, links) is a code span, escaped text or a
checked link (``runs.run_link``): nothing in a record can add Markdown, HTML or a line.
"""

from __future__ import annotations

from typing import Any

from aw_action.run import human
from aw_action.sinks import markdown as md
from aw_action.sinks.mermaid import bar_chart, pie_chart

MAX_ROWS = 1000
"""Runs listed one per row at most (a step summary holds 1 MiB); the JSON holds them all."""
MAX_FAILED_ROWS = 300
"""Failed or stopped runs listed with their explanation at most (the rest are in every run's table)."""
MAX_WHY = 400
"""An explanation's characters in the Markdown (the JSON has it whole)."""
MINUTES_FROM_S = 120
"""The time chart is in minutes once a run took this long, else in seconds."""
FIGURE_LABELS = {
    "turns": "Turns",
    "tool_calls": "Tool calls",
    "tokens": "Tokens",
    "effective_tokens": "Effective tokens",
    "cost_usd": "Cost",
    "duration_ms": "Duration",
}


def _code(text: object) -> str:
    return md.code(str(text)).replace("|", "\\|")


def _figure(name: str, value: float | None) -> str:
    if name == "cost_usd":
        return md.usd(value)
    if name == "duration_ms":
        return md.duration(value)
    return md.integer(value)


def _headline(report: dict[str, Any]) -> str:
    counts, figures = report["counts"], report["figures"]
    ran = f"**{human.count(counts['runs'], 'run')}**"
    parts = [f"{ran}: {counts['succeeded']} succeeded, {counts['failed_or_stopped']} failed or stopped"]
    if counts["not_read"]:
        parts.append(f"**{human.count(counts['not_read'], 'artifact')} not read**")
    cost = figures["cost_usd"]
    unpriced = f" (+ {human.count(cost['unknown'], 'run')} of unknown price)" if cost["unknown"] else ""
    spent = md.usd(cost["total"]) + unpriced
    parts.append(f"cost {spent}, time {md.duration(figures['duration_ms']['total'])}")
    return " · ".join(parts)


def _failed(runs: list[dict[str, Any]]) -> str:
    rows = [
        [
            str(number),
            _code(run["artifact"]),
            _code(run["stop_reason"]),
            md.escape(_cut(run["explanation"] or f"ended {run['conclusion']} ({run['stop_reason']})")),
        ]
        for number, run in enumerate(runs, start=1)
        if not _succeeded(run)
    ]
    if not rows:
        return ""
    table = md.table(["#", "Run", "Stop reason", "Why"], rows[:MAX_FAILED_ROWS], "rlll", escaped=True)
    more = len(rows) - MAX_FAILED_ROWS
    return (
        "### Failed or stopped\n\n"
        + table
        + (f"\n\n{more} more are in the JSON report (`--json`)." if more > 0 else "")
    )


def _cut(text: str) -> str:
    return text if len(text) <= MAX_WHY else text[: MAX_WHY - 1] + "…"


def _succeeded(run: dict[str, Any]) -> bool:
    return bool(run["exit_code"] == 0 and run["conclusion"] == "success")


def _problems(problems: list[dict[str, Any]]) -> str:
    if not problems:
        return ""
    rows = [[_code(p["artifact"]), p["status"], md.escape(p["problem"])] for p in problems]
    lines = [f"{human.count(len(problems), 'artifact')} not counted in the figures above or below."]
    warning = md.alert("warning", lines)
    table = md.table(["Artifact", "Not read", "Why"], rows, "lll", escaped=True)
    return f"### Not read\n\n{warning}\n\n{table}"


def _figures(figures: dict[str, Any]) -> str:
    rows = []
    for name, label in FIGURE_LABELS.items():
        f = figures[name]
        unknown = f"{f['unknown']} runs" if f["unknown"] else ""
        rows.append([label, _figure(name, f["total"]), _figure(name, f["median"]), unknown])
    return "### Totals and medians\n\n" + md.table(["", "Total", "Median", "Unknown"], rows, "lrrr")


def _charts(report: dict[str, Any]) -> str:
    runs = report["runs"]
    costs = [run["cost_usd"] or 0.0 for run in runs]
    seconds = [(run["duration_ms"] or 0.0) / 1000 for run in runs]
    in_minutes = max(seconds, default=0) >= MINUTES_FROM_S
    times = [s / 60 for s in seconds] if in_minutes else seconds
    charts = [
        bar_chart("Cost per run", "USD", costs, places=4) if any(costs) else "",
        bar_chart("Time per run", "Minutes" if in_minutes else "Seconds", times, places=2 if in_minutes else 1),
        pie_chart("How the runs ended", list(report["counts"]["by_stop_reason"].items())),
    ]
    drawn = [chart for chart in charts if chart]
    return "### Charts\n\n" + "\n\n".join(drawn) if drawn else ""


def _runs(runs: list[dict[str, Any]]) -> str:
    rows = [
        [
            str(number),
            _code(run["artifact"]),
            md.escape(run["conclusion"]),
            _code(run["stop_reason"]),
            _code(run["model"] or "unknown"),
            md.integer(run["turns"]),
            md.integer(run["tool_calls"]),
            md.integer(run["tokens"]),
            md.integer(run["effective_tokens"]),
            md.usd(run["cost_usd"]),
            md.duration(run["duration_ms"]),
            f"[run]({run['link']})" if run["link"] else "",
        ]
        for number, run in enumerate(runs[:MAX_ROWS], start=1)
    ]
    header = ["#", "Run", "Conclusion", "Stop reason", "Model", "Turns", "Tool calls", "Tokens", "Effective"]
    table = md.table([*header, "Cost", "Duration", "Link"], rows, "rllllrrrrrrl", escaped=True)
    more = f"\n\n{len(runs) - MAX_ROWS} more runs are in the JSON report (`--json`)." if len(runs) > MAX_ROWS else ""
    return f"### Every run\n\n{table}{more}"


def render_markdown(report: dict[str, Any]) -> str:
    """The whole report; ends with a newline."""
    parts = [
        "## AW Harness report",
        _headline(report),
        _failed(report["runs"]),
        _problems(report["problems"]),
        _figures(report["figures"]) if report["runs"] else "",
        _charts(report) if report["runs"] else "",
        _runs(report["runs"]) if report["runs"] else "_No run could be read._",
    ]
    return "\n\n".join(part for part in parts if part) + "\n"
