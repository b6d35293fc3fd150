"""The human-readable audit report: GitHub-flavoured Markdown, so it reads in a terminal and
renders when pasted into an issue or a step summary."""

from __future__ import annotations

from typing import Any

from aw_action.audit.workflow import render_workflow
from aw_action.sinks import markdown as md


def _credits(value: float | None) -> str:
    return "unknown" if value is None else f"{value:,.2f}"


def _totals_table(totals: dict[str, Any]) -> str:
    rows = [
        [label, md.integer(totals[key])]
        for label, key in (
            ("Input (uncached)", "input_tokens"),
            ("Cache read", "cache_read_tokens"),
            ("Cache write", "cache_write_tokens"),
            ("Output", "output_tokens"),
            ("Reasoning", "reasoning_tokens"),
            ("**Total**", "total_tokens"),
            ("Effective tokens", "effective_tokens"),
        )
    ]
    rows += [
        ["Estimated cost", md.usd(totals["cost_usd"])],
        ["AI credits", _credits(totals["ai_credits"])],
        ["Requests", md.integer(totals["requests"])],
        ["Request time", md.duration(totals["duration_ms"])],
    ]
    return md.table(["Token class", "Count"], rows, "lr")


def _by_model(by_model: dict[str, Any]) -> str:
    rows = [
        [
            md.code(m),
            s["provider"],
            md.integer(s["requests"]),
            md.integer(s["input_tokens"]),
            md.integer(s["cache_read_tokens"]),
            md.integer(s["cache_write_tokens"]),
            md.integer(s["output_tokens"]),
            md.integer(s["effective_tokens"]),
            md.usd(s["cost_usd"]),
            _credits(s["ai_credits"]),
        ]
        for m, s in by_model.items()
    ]
    header = [
        "Model",
        "Provider",
        "Requests",
        "Input",
        "Cache read",
        "Cache write",
        "Output",
        "Effective",
        "Cost",
        "AI credits",
    ]
    return md.table(header, rows, "llrrrrrrrr")


def render_text(report: dict[str, Any]) -> str:
    o = report["overview"]
    parts = [
        f"## AW Harness Audit — {md.code(str(o['model'] or 'unknown model'))}",
        md.table(
            ["", ""],
            [
                ["Conclusion", o["conclusion"] or "unknown"],
                ["Stop reason", o["stop_reason"] or "unknown"],
                ["Exit code", "unknown" if o["exit_code"] is None else o["exit_code"]],
                ["Duration", md.duration(o["duration_ms"])],
                ["Source", o["source"]],
            ],
            "ll",
        ),
        "### Totals (agent phase)",
        _totals_table(report["totals"]),
    ]
    if report["by_model"]:
        parts += ["### By Model", _by_model(report["by_model"])]
    if "detection" in report:
        parts += ["### Threat Detection (kept out of the totals)", _by_model(report["detection"]["by_model"])]
    if report["turns"]:
        rows = [
            [
                str(t["turn"]) + ("" if t["completed"] else " (incomplete)"),
                md.integer(t["input_tokens"]),
                md.integer(t["output_tokens"]),
                md.integer(t["cumulative_tokens"]),
                md.integer(t["cumulative_effective_tokens"]),
                md.usd(t["cost_usd"]),
            ]
            for t in report["turns"]
        ]
        parts += [
            "### Turns",
            md.table(["Turn", "Input", "Output", "Cumulative", "Cumulative effective", "Cost"], rows, "lrrrrr"),
        ]
    notices = report["steering_notices"]
    parts.append("### Steering Notices")
    parts.append(
        "\n".join(
            f"- {n['type']} {n['threshold']}% request_id={n['request_id']}"
            + ("" if n.get("phase", "agent") == "agent" else f" phase={n['phase']}")
            for n in notices
        )
        if notices
        else "_None recorded._"
    )
    if report["tools"]:
        rows = [
            [md.code(t["name"]), md.integer(t["count"]), md.integer(t["errors"]), md.duration(t["duration_ms"])]
            for t in report["tools"]
        ]
        parts += ["### Tools", md.table(["Tool", "Calls", "Errors", "Time"], rows, "lrrr")]
    if report.get("workflow"):
        parts.append(render_workflow(report["workflow"]))
    parts.append("### Warnings")
    parts.append("\n".join(f"- {md.cell(w)}" for w in report["warnings"]) or "_None._")
    if report["degraded"]:
        parts += [
            "### Degraded Sinks",
            "\n".join(
                f"- **{md.cell(d.get('subsystem'))}**: {md.cell(d.get('detail'))} _Fix:_ {md.cell(d.get('hint'))}"
                for d in report["degraded"]
            ),
        ]
    parts.append("_Read:_ " + ", ".join(md.code(s) for s in report["sources"]))
    return "\n\n".join(parts) + "\n"
