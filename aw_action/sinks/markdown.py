"""Small GitHub-flavoured Markdown builders shared by the step summary and the audit report.

Contract: every function returns text that cmark-gfm (GitHub's renderer) parses as intended:
table cells never break the row (pipes escaped, newlines flattened), code spans survive
backticks in their content, and alerts are blockquotes that render even where GitHub's
``[!NOTE]`` syntax is not recognised.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

from aw_action.run.explanation import Name, Verbatim, Words
from aw_action.security.untrusted_text.sanitize import strip_invisible

_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&!#$])")


def cell(value: object) -> str:
    """One table cell: a single line with ``|`` escaped (GFM ends a cell at an unescaped pipe)."""
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    return text.replace("\\", "\\\\").replace("|", "\\|")


def code(text: str) -> str:
    """An inline code span that contains ``text`` verbatim, whatever backticks it holds."""
    text = " ".join(text.split())
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_cell(text: str) -> str:
    """A table cell holding ``text`` as one inert code span (no link, mention, image or HTML works
    in it); its pipes escaped, which GFM undoes inside a code span in a table."""
    return code(strip_invisible(text)[0]).replace("|", "\\|") if text.strip() else ""


def escape(text: str) -> str:
    """``text`` as literal inline text: one line, every character Markdown or HTML could act on
    backslash-escaped, invisible characters removed. (An ``https://`` URL in it may still be
    autolinked: GitHub links bare URLs whatever the escapes.)"""
    return _SPECIAL.sub(r"\\\1", strip_invisible(" ".join(text.split()))[0])


MODEL_TEXT_HIDDEN = "(the model's words, in the run's summary)"


def words(parts: Words, model_text: bool = True) -> str:
    """An explanation's sentence (``run/explain.py``): names as code, text the harness did not
    write as code too (inert: no link, mention, heading or HTML works in a code span); with
    ``model_text`` False, what the model wrote is not shown at all (``MODEL_TEXT_HIDDEN``)."""
    out = []
    for part in parts:
        if isinstance(part, Name):
            out.append(code(strip_invisible(part.text)[0]))
        elif isinstance(part, Verbatim):
            shown = model_text or not part.model
            out.append(code(strip_invisible(part.text)[0]) if shown else MODEL_TEXT_HIDDEN)
        else:
            out.append(part)
    return " ".join("".join(out).split())


def table(header: Sequence[str], rows: Sequence[Sequence[object]], align: str = "", *, escaped: bool = False) -> str:
    """A pipe table. ``align`` holds one letter per column: ``l``, ``r`` or ``c`` (default left).
    ``escaped``: the rows' cells are already made safe (``escape``, ``code``: one line, pipes
    escaped) and are taken as they are (``cell`` would escape their backslashes a second time)."""
    marks = {"l": "---", "r": "--:", "c": ":-:"}
    seps = [marks.get(align[i] if i < len(align) else "l", "---") for i in range(len(header))]
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "| " + " | ".join(seps) + " |"]
    for row in rows:
        padded = [*row, *([""] * (len(header) - len(row)))][: len(header)]
        lines.append("| " + " | ".join(str(c) if escaped else cell(c) for c in padded) + " |")
    return "\n".join(lines)


def alert(kind: str, lines: Sequence[str]) -> str:
    """A GitHub alert block (``NOTE``, ``WARNING``, ``CAUTION``...); each line is a paragraph line."""
    body = [f"> [!{kind.upper()}]"]
    body += [f"> {' '.join(line.split())}" if line.strip() else ">" for line in lines]
    return "\n".join(body)


def integer(value: float | int | None) -> str:
    return "–" if value is None else f"{round(value):,}"


def usd(value: float | None, places: int = 4) -> str:
    return "unknown" if value is None else f"${value:,.{places}f}"


def duration(ms: float | int | None) -> str:
    """``1m 05s`` style; seconds with one decimal under a minute."""
    if ms is None:
        return "–"
    seconds = max(float(ms), 0.0) / 1000.0
    if seconds < 60:
        return f"{seconds:.1f}s"
    whole = timedelta(seconds=round(seconds))
    minutes, secs = divmod(int(whole.total_seconds()), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


def code_block(text: str, info: str = "") -> str:
    """A fenced code block that holds ``text`` verbatim: the fence is longer than any backtick
    run inside it, so nothing in it can close the block, start a heading or render a link."""
    longest = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip()}\n{fence}"
