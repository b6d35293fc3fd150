"""Helpers for the observability tests: scripted runs, the event schema, GFM rendering."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import cmarkgfm
import jsonschema
from cmarkgfm.cmark import Options as cmarkgfmOptions

from aw_action.schemas import load_schema
from tests.conftest import CliRun, base_env, run_cli, write_run_files

HUMAN_LINE = re.compile(
    r"^Turn (\d+): (?:.+?) \| ([\d,]+) in / ([\d,]+) out raw tokens, ([\d,]+) effective \| "
    r"cumulative ([\d,]+) raw, ([\d,]+) effective tokens(?: \(of ([\d,]+)\))? \| (.+)$"
)

NOT_STARTED = re.compile(r"^Turn (\d+): not started \(the run stopped: \w+\)$")
"""The turn line of a turn the run stopped before its request was sent."""

TOOL_SCRIPT: list[dict[str, Any]] = [
    {
        "text": "Listing.",
        "tool_calls": [{"name": "bash", "arguments": {"command": "echo one"}}],
        "usage": {"input": 1000, "output": 50, "cache_read": 400, "cache_write": 100},
    },
    {
        "text": "Failing.",
        "tool_calls": [{"name": "bash", "arguments": {"command": "exit 3"}}],
        "usage": {"input": 1100, "output": 60, "cache_read": 500, "reasoning": 20},
    },
    {"text": "All done.", "usage": {"input": 1200, "output": 70}},
]
"""Three turns, two tool calls (the second fails), usage in every token class."""

BUDGET_SCRIPT: list[dict[str, Any]] = [
    {
        "text": f"Step {i}.",
        "tool_calls": [{"name": "bash", "arguments": {"command": f"echo {i}"}}],
        "usage": {"input": 1000, "output": 0},
    }
    for i in range(1, 6)
]
"""1,000 effective tokens a request; with a 4,000 budget the second request carries the final
budget notice (the forecast sees no room for a third) and the third is refused (budget_exceeded,
exit 1)."""


def scripted_run(
    tmp: Path,
    script: list[dict[str, Any]],
    config: dict[str, Any] | None = None,
    prompt: str = "Do the task.",
    summary: bool = True,
    **env: str,
) -> CliRun:
    cfg = {"engine": {"id": "aw", "model": "faux/scripted"}, **(config or {})}
    config_path, prompt_path = write_run_files(tmp, cfg, prompt, script)
    extra = {"GITHUB_STEP_SUMMARY": str(tmp / "summary.md")} if summary else {}
    return run_cli(["--config", str(config_path), "--prompt", str(prompt_path)], base_env(tmp, **extra, **env))


def event_validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_schema("events.schema.json"))


def split_stderr(stderr: str) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """(JSON events, human turn lines, ``aw-harness: `` diagnostics); anything else fails."""
    events: list[dict[str, Any]] = []
    human: list[str] = []
    diagnostics: list[str] = []
    for line in stderr.splitlines():
        if line.startswith("{"):
            events.append(json.loads(line))
        elif HUMAN_LINE.match(line) or NOT_STARTED.match(line):
            human.append(line)
        elif line.startswith("aw-harness: "):
            diagnostics.append(line)
        else:
            raise AssertionError(f"stderr line is neither JSONL, a turn line nor a diagnostic: {line!r}")
    return events, human, diagnostics


def gfm(markdown: str) -> str:
    """Render with cmark-gfm, GitHub's own Markdown engine (tables, strikethrough, autolinks...)."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown)
    return html


def gfm_page(markdown: str) -> str:
    """As GitHub renders a step summary: raw HTML such as ``<details>`` kept (GitHub then allows
    only a safe list of tags, ``details`` and ``summary`` among them)."""
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=cmarkgfmOptions.CMARK_OPT_UNSAFE)
    return html


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
