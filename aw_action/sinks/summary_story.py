"""What the agent said and did, for the step summary: its answer, its tool calls, its structured
output, and on a schema failure the answer that failed.

All of it is model-produced or tool-produced, so all of it is made inert: the answer through
``sinks/answer.py`` (sanitised, rendered as Markdown, unable to reshape the page), capped at
``FINAL_MESSAGE_CHARS``; each tool call one inline code span (one line, backticks survive,
invisible characters removed), shortened to ``COMMAND_CHARS``; a failure's status in the
harness's words (``exit 3``) or the first line of the error as code; JSON in a code fence longer
than any backtick run inside it. The header lists up to ``HEADER_CALLS`` calls; a longer run lists
its failed calls there and every call, up to ``MAX_COMMANDS``, in a collapsed block.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, ToolResultMessage
from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.names import server_of
from aw_action.run import human
from aw_action.security.untrusted_text.sanitize import strip_invisible
from aw_action.sinks import markdown as md
from aw_action.sinks.answer import answer_markdown
from aw_action.sinks.readable import failure_of

FINAL_MESSAGE_CHARS = 4_000
STRUCTURED_CHARS = 4_000
COMMAND_CHARS = 120
ERROR_CHARS = 100
HEADER_CALLS = 12
MAX_COMMANDS = 100


@dataclass(frozen=True)
class ToolCallLine:
    """One tool call: what it did, whether it worked, how long it took, and why it failed."""

    name: str
    what: str
    ok: bool | None
    """None: the call never ended (the run stopped while it ran, or it was never run)."""
    duration_ms: int | None = None
    status: str = ""
    """For a failure: ``exit 3`` and the like (the harness's words)."""
    error: str = ""
    """For a failure without a status: the first line of the error (tool-produced)."""


def describe(name: str, args: Mapping[str, Any]) -> str:
    """A call as a line: a bash command as written, an MCP tool with its server's name, another
    tool as its name and path."""
    if name == "bash" and isinstance(args.get("command"), str):
        return str(args["command"])
    server = server_of(name)
    if server is not None:
        return f"MCP {server}: {name.removeprefix(f'mcp__{server}__')}"
    if isinstance(args.get("path"), str):
        return f"{name} {args['path']}"
    return name


def tool_calls(messages: Sequence[AnyMessage], durations: Mapping[str, int] | None = None) -> list[ToolCallLine]:
    """Every tool call the agent made, in order, with how it ended (from its result message)."""
    results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    out: list[ToolCallLine] = []
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            result = results.get(call.id)
            what = describe(call.name, call.arguments)
            took = (durations or {}).get(call.id)
            if result is None:
                out.append(ToolCallLine(call.name, what, None, took))
            elif result.is_error:
                status, error = failure_of(result.text)
                out.append(ToolCallLine(call.name, what, False, took, status, error))
            else:
                out.append(ToolCallLine(call.name, what, True, took))
    return out


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters (whitespace runs folded, an ellipsis when cut)."""
    line = " ".join(strip_invisible(text)[0].split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _took(ms: int | None) -> str:
    if ms is None:
        return ""
    return f"{ms:,} ms" if ms < 1000 else human.duration(ms / 1000)


def call_line(call: ToolCallLine) -> str:
    mark = {True: "✅", False: "❌", None: "⏹️"}[call.ok]
    parts = [f"{mark} {md.code(shorten(call.what, COMMAND_CHARS))}"]
    if call.duration_ms is not None:
        parts.append(_took(call.duration_ms))
    if call.ok is None:
        parts.append("not finished")
    elif not call.ok:
        parts.append(call.status or md.code(shorten(call.error, ERROR_CHARS)))
    return "- " + " · ".join(parts)


def calls_section(calls: Sequence[ToolCallLine]) -> str:
    """The header's list of tool calls (module docstring)."""
    if not calls:
        return ""
    failed = [c for c in calls if c.ok is False]
    if len(calls) <= HEADER_CALLS:
        return "\n".join([f"### Tool calls ({len(calls)})", "", *(call_line(c) for c in calls)])
    ok = sum(1 for c in calls if c.ok)
    counts = f"{ok:,} ✅ · {len(failed):,} ❌" + (
        f" · {len(calls) - ok - len(failed):,} ⏹️" if ok + len(failed) < len(calls) else ""
    )
    lines = [f"### Tool calls ({len(calls):,}: {counts})", ""]
    shown_failed = failed[:HEADER_CALLS]
    if shown_failed:
        lines += ["The failed ones:", "", *(call_line(c) for c in shown_failed)]
        if len(failed) > HEADER_CALLS:
            lines.append(f"- _… and {len(failed) - HEADER_CALLS:,} more failed (all calls below)_")
        lines.append("")
    every = [call_line(c) for c in calls[:MAX_COMMANDS]]
    if len(calls) > MAX_COMMANDS:
        every.append(f"- _… and {len(calls) - MAX_COMMANDS:,} more (see the session file)_")
    lines += ["<details>", f"<summary>Every tool call ({len(calls):,})</summary>", "", *every, "", "</details>"]
    return "\n".join(lines)


def answer_section(text: str, title: str = "Answer") -> str:
    """The answer rendered (``sinks/answer.py``), with a note when it is cut."""
    if not text.strip():
        return ""
    answer = answer_markdown(text, FINAL_MESSAGE_CHARS)
    parts = [f"### {title}", answer.markdown]
    if answer.cut:
        parts.append(
            f"_The answer is cut at {FINAL_MESSAGE_CHARS:,} of {len(text):,} characters: the `final-message` "
            "output and the session file hold all of it._"
        )
    return "\n\n".join(parts)


def structured_section(value: Any, corrections: int = 0) -> str:
    """The validated ``output-schema`` value, as JSON, and when it matched."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    cut = len(text) > STRUCTURED_CHARS
    after = f"after {corrections} corrective prompt{'s' if corrections != 1 else ''}"
    when = "at the first answer" if not corrections else after
    parts = [
        "### Structured Output",
        f"The final answer matched `output-schema` {when}; it is saved as `structured-output.json`.",
        md.code_block(text[:STRUCTURED_CHARS] + ("\n…" if cut else ""), "json"),
    ]
    if cut:
        parts.append("_Cut here: `structured-output.json` and the `structured-output` output hold all of it._")
    return "\n\n".join(parts)


def failed_answer_section(text: str) -> str:
    """The answer that did not match ``output-schema``, verbatim (it is meant to be JSON)."""
    if not text.strip():
        return "### The model's last answer\n\n_The model gave no text answer._"
    shown = text[:FINAL_MESSAGE_CHARS] + ("\n…" if len(text) > FINAL_MESSAGE_CHARS else "")
    return "\n\n".join(["### The model's last answer (it did not match the schema)", md.code_block(shown, "text")])
