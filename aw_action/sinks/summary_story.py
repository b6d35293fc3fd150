"""What the agent said and did, for the step summary: its final message and the commands it ran.

Both are model-produced text, so both are made inert: the final message sits in a code fence
longer than any backtick run inside it (nothing in it can close the fence, start a heading or
render as HTML), capped at ``FINAL_MESSAGE_CHARS``; each command is one inline code span (one
line, backticks survive), shortened to ``COMMAND_CHARS``, at most ``MAX_COMMANDS`` of them, in a
collapsed ``<details>`` block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage
from aw_action.sinks import markdown as md

FINAL_MESSAGE_CHARS = 4_000
COMMAND_CHARS = 160
MAX_COMMANDS = 100
_BACKTICKS = re.compile(r"`+")


def agent_commands(messages: Sequence[AnyMessage]) -> list[str]:
    """Every tool call the agent made, in order, as a line: a bash command as written, another
    tool as its name and path (``read src/app.py``), else its name."""
    out: list[str] = []
    for message in messages:
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls:
            args = call.arguments
            if call.name == "bash" and isinstance(args.get("command"), str):
                out.append(args["command"])
            elif isinstance(args.get("path"), str):
                out.append(f"{call.name} {args['path']}")
            else:
                out.append(call.name)
    return out


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters (whitespace runs folded, an ellipsis when cut)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def final_message_section(text: str) -> str:
    if not text.strip():
        return ""
    shown = text if len(text) <= FINAL_MESSAGE_CHARS else text[:FINAL_MESSAGE_CHARS]
    longest = max((len(m) for m in _BACKTICKS.findall(shown)), default=0)
    fence = "`" * max(3, longest + 1)
    parts = ["### Final Message", f"{fence}text\n{shown.rstrip()}\n{fence}"]
    if len(text) > FINAL_MESSAGE_CHARS:
        parts.append(
            f"_The message is cut at {FINAL_MESSAGE_CHARS:,} of {len(text):,} characters: the `final-message` "
            "output and the session file hold all of it._"
        )
    return "\n\n".join(parts)


def commands_section(commands: Sequence[str]) -> str:
    if not commands:
        return ""
    shown = [f"- {md.code(shorten(c, COMMAND_CHARS))}" for c in commands[:MAX_COMMANDS]]
    if len(commands) > MAX_COMMANDS:
        shown.append(f"- _… and {len(commands) - MAX_COMMANDS:,} more (see the session file)_")
    title = f"Tool calls the agent made ({len(commands):,})"
    return "\n".join(["<details>", f"<summary>{title}</summary>", "", *shown, "", "</details>"])
