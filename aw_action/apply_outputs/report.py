"""What the apply job reports: one JSON object on stdout, a step-summary table and step outputs.

Outputs: ``created-urls`` (one per line), ``created-items`` (JSON list of ``{type, url, number}``),
``applied-count`` and ``failed-count``. Every value passes the redactor first.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.github.outputs import APPLY_OUTPUT_NAMES, write_outputs
from aw_action.run.redact import Redactor
from aw_action.sinks import markdown as md

OK_STATUSES = frozenset({"planned", "created", "exists", "applied", "noted", "in-review"})


def _cell(text: Any) -> str:
    """What an item became: its URL (GitHub's, a link), else its error, message or title (text the
    agent may have shaped: one inert code span)."""
    value = " ".join(str(text).split())[:200]
    return value if value.startswith("https://") and " " not in value else md.code_cell(value)


def summary_markdown(report: Mapping[str, Any]) -> str:
    items: list[dict[str, Any]] = report["items"]
    heading = "### Safe outputs (dry run)" if report.get("dry_run") else "### Safe outputs"
    lines = [heading, "", f"Repository `{report['repository']}`, run {report['run_id']}.", ""]
    if report.get("untrusted"):
        lines += [f"Untrusted records: {md.code_cell(report['untrusted'])}; only COMMENT reviews apply.", ""]
    if not items:
        return "\n".join([*lines, "No records.", ""])
    lines += ["| line | type | status | result |", "|---|---|---|---|"]
    for item in items:
        result = item.get("url") or item.get("error") or item.get("message") or item.get("title") or ""
        if not result and item.get("review_line"):
            result = f"goes out in the review on line {item['review_line']}"
        where = f" in `{item['repository']}`" if item.get("repository") else ""  # target-repo: owner/name
        lines.append(
            f"| {item.get('line')} | {_cell(item.get('type') or '?')} | {item['status']} | {_cell(result)}{where} |"
        )
    return "\n".join([*lines, ""]) + "\n"


def created_items(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"type": i["type"], "url": i["url"], "number": i.get("number")}
        for i in report["items"]
        if i["status"] in ("created", "exists") and i.get("url")
    ]


def publish(report: dict[str, Any], runner: RunnerFacts, redactor: Redactor, stdout: Any) -> None:
    """Print the report and write the step summary and outputs (when the runner gave files)."""
    safe: dict[str, Any] = redactor.obj(report)
    stdout.write(json.dumps(safe, ensure_ascii=False) + "\n")
    stdout.flush()
    summary = runner.step_summary
    if summary:
        with open(Path(summary), "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(summary_markdown(safe))
    created = created_items(safe)
    values = [
        "\n".join(i["url"] for i in created),
        json.dumps(created),
        str(sum(1 for i in safe["items"] if i["status"] in OK_STATUSES)),
        str(sum(1 for i in safe["items"] if i["status"] not in OK_STATUSES)),
    ]
    write_outputs(runner.output_file or None, dict(zip(APPLY_OUTPUT_NAMES, values, strict=True)))
