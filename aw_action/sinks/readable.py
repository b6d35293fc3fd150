"""The readable log: what the agent says and does, as lines people read (the action's step log,
the CLI's pretty mode). The JSONL records are unchanged; these lines come in addition.

Shapes (every line starts with a space, so no line can read as a JSONL record or a diagnostic,
whatever the model wrote)::

      I'll list the files first.          the assistant's text (capped)
      → [1] bash: ls -la src              a tool call: the command, the path or the edit, shortened
      ← [1] bash: ok, 12 ms, 42 lines     its end, then a short head and tail of its output
          │ total 12
          │ … 34 lines not shown …
          │ -rw-r--r-- main.py
      … still waiting for the model (40 s)

Contract: model-produced text is cleaned before it is shaped: line separators become new lines, tabs
four spaces, and each line is made inert by ``ai/inert_line.one_line`` (control characters, ANSI
escapes included, bidirectional and invisible characters escaped; a workflow command's prefix
escaped); a tool name is shown by ``tool_label`` (an invented one quoted and escaped).
``ReadableLog`` caps what one turn and the whole run may write (``TURN_MAX_CHARS``,
``RUN_MAX_CHARS``) and says once when it stops; heartbeats are never capped (they are small and are
the point during a long request). Secrets are the writer's business (the JSONL sink redacts).
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Callable, Mapping
from typing import Any

from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT
from aw_action.ai.inert_line import one_line, tool_label

TEXT_MAX_CHARS = 1_500
CALL_MAX_CHARS = 160
LINE_MAX_CHARS = 200
HEAD_LINES = 6
TAIL_LINES = 4
TURN_MAX_CHARS = 6_000
"""What one turn may add to the log; past it the turn says so once and shows no more."""
RUN_MAX_CHARS = 400_000
"""What the whole run may add (GitHub shows step logs of about 1 MiB comfortably; the JSONL
records take their share)."""

TEXT = "  "
CALL = "  → "
DONE = "  ← "
OUTPUT = "      │ "

_SEPARATORS = re.compile(r"\r\n|[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def clean(text: str) -> str:
    """``text`` safe to print: one kind of line break, each line inert (``one_line``)."""
    lines = _SEPARATORS.sub("\n", text).replace("\t", "    ").split("\n")
    return "\n".join(one_line(line) for line in lines)


def name_of(name: str) -> str:
    """A tool name as the log shows it, at most 60 characters."""
    label = tool_label(name)
    return label if len(label) <= 60 else label[:59] + "…"


def shorten(text: str, limit: int) -> str:
    """The first line of ``text``, at most ``limit`` characters, with ``…`` where it was cut."""
    lines = clean(text).strip().split("\n")
    first = lines[0]
    more = len(lines) > 1
    if len(first) > limit:
        first, more = first[: limit - 1], True
    return first + (" …" if more else "")


def assistant_lines(text: str) -> list[str]:
    """The assistant's text, indented, cut at ``TEXT_MAX_CHARS``, long lines wrapped."""
    body = clean(text).strip()
    if not body:
        return []
    cut = len(body) - TEXT_MAX_CHARS
    if cut > 0:
        body = body[:TEXT_MAX_CHARS].rstrip() + f" … ({cut:,} more characters)"
    out: list[str] = []
    for line in body.split("\n"):
        parts = [line.rstrip()] if len(line) <= LINE_MAX_CHARS else textwrap.wrap(line, LINE_MAX_CHARS)
        out += [TEXT + part if part.strip() else "" for part in parts]
    return out


def describe_call(name: str, args: Mapping[str, Any]) -> str:
    """What the call does, shortened: the command, the path, or the edit."""
    path = args.get("path")
    if name == "bash" and isinstance(args.get("command"), str):
        return "$ " + shorten(args["command"], CALL_MAX_CHARS)
    if name == "read" and isinstance(path, str):
        offset, limit = args.get("offset"), args.get("limit")
        span = f" (from line {offset})" if isinstance(offset, int) else ""
        span += f" ({limit} lines)" if isinstance(limit, int) else ""
        return shorten(path, CALL_MAX_CHARS) + span
    if name == "write" and isinstance(path, str):
        content = args.get("content")
        size = f" ({len(content):,} characters)" if isinstance(content, str) else ""
        return shorten(path, CALL_MAX_CHARS) + size
    if name == "edit" and isinstance(path, str):
        return shorten(path, CALL_MAX_CHARS) + _edit_summary(args)
    return shorten(json.dumps(dict(args), ensure_ascii=False, default=str), CALL_MAX_CHARS)


def _edit_summary(args: Mapping[str, Any]) -> str:
    edits = args.get("edits")
    pairs = edits if isinstance(edits, list) else [args]
    first = pairs[0] if pairs and isinstance(pairs[0], Mapping) else {}
    old, new = first.get("oldText"), first.get("newText")
    if not isinstance(old, str) or not isinstance(new, str):
        return ""
    more = f" (+{len(pairs) - 1} more)" if len(pairs) > 1 else ""
    return f': "{shorten(old, 50)}" → "{shorten(new, 50)}"{more}'


def call_line(index: int, name: str, args: Mapping[str, Any]) -> str:
    return f"{CALL}[{index}] {name_of(name)}: {describe_call(name, args)}"


_STATUS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Command exited with code (-?\d+)\s*$"), "exit {0}"),
    (re.compile(r"Command timed out after ([\d.]+) seconds\s*$"), "timed out after {0} s"),
    (re.compile(r"Command was killed by signal (\w+)\s*$"), "killed by {0}"),
    (re.compile(r"Command aborted\s*$"), "aborted"),
)
"""The last line of a failed bash call (``tools/bash.py``), in the harness's own words."""


def failure_of(text: str) -> tuple[str, str]:
    """``(status, error)`` of a failed call's result text: a command's end in the harness's
    words (``exit 3``, ``timed out after 10 s``) and no error, or no status and the first line
    of the error (a tool's own words: ``File not found: x``)."""
    lines = [line for line in text.strip().split("\n") if line.strip()]
    if not lines:
        return "", "failed"
    for pattern, words in _STATUS:
        found = pattern.search(lines[-1])
        if found:
            return words.format(*found.groups()), ""
    return "", lines[0]


def result_lines(index: int, name: str, text: str, is_error: bool, duration_ms: int) -> list[str]:
    """The call's end, then a head and a tail of its output (all of it when only one line would
    be left out)."""
    lines = clean(text).rstrip("\n").split("\n") if text.strip() else []
    how = failure_of(text)[0] if is_error else ""
    status = ("failed" + (f" ({how})" if how else "")) if is_error else "ok"
    count = f"{len(lines):,} line{'s' if len(lines) != 1 else ''}" if lines else "no output"
    out = [f"{DONE}[{index}] {name_of(name)}: {status}, {duration_ms:,} ms, {count}"]
    if len(lines) > HEAD_LINES + TAIL_LINES + 1:
        hidden = len(lines) - HEAD_LINES - TAIL_LINES
        lines = [*lines[:HEAD_LINES], f"… {hidden:,} lines not shown …", *lines[-TAIL_LINES:]]
    out += [OUTPUT + _cut(line) for line in lines]
    return out


def _cut(line: str) -> str:
    return line if len(line) <= LINE_MAX_CHARS else line[: LINE_MAX_CHARS - 1] + "…"


def heartbeat_line(waited_s: float) -> str:
    return f"{TEXT}… still waiting for the model ({waited_s:.0f} s)"


class ReadableLog:
    """Writes readable lines through ``write`` (one line per call), within the caps."""

    def __init__(
        self, write: Callable[[str], None], turn_max: int = TURN_MAX_CHARS, run_max: int = RUN_MAX_CHARS
    ) -> None:
        self._write = write
        self.turn_max = turn_max
        self.run_max = run_max
        self.turn_chars = 0
        self.run_chars = 0
        self._turn_cut = False
        self._run_cut = False

    def new_turn(self) -> None:
        self.turn_chars = 0
        self._turn_cut = False

    def lines(self, lines: list[str]) -> None:
        """Write ``lines`` as one block: all of it, or (past a cap) a note that the rest is cut."""
        size = sum(len(line) + 1 for line in lines)
        if self._run_cut or self._turn_cut:
            return
        if self.run_chars + size > self.run_max:
            self._run_cut = True
            self._emit(f"{TEXT}… the readable log stops here ({self.run_chars:,} characters); see {TRANSCRIPT}")
        elif self.turn_chars + size > self.turn_max:
            self._turn_cut = True
            self._emit(f"{TEXT}… the rest of this turn is not shown; see {TRANSCRIPT}")
        else:
            self.turn_chars += size
            for line in lines:
                self._emit(line)

    def heartbeat(self, waited_s: float) -> None:
        self._write(heartbeat_line(waited_s))

    def _emit(self, line: str) -> None:
        self.run_chars += len(line) + 1
        self._write(line)
