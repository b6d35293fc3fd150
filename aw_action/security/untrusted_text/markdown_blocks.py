"""The block structure of agent-written Markdown, kept from reshaping what the harness writes
around it (issue 30). Judged as cmark-gfm, GitHub's renderer, parses it, not as the text looks:

- line endings: cmark-gfm ends a line at ``\\n``, ``\\r\\n`` and a bare ``\\r``; U+2028 and U+2029
  (line breaks to a person reading the text) are folded too, so no rule below splits lines
  differently from the renderer;
- headings: no heading the agent wrote can stand level with the harness's own (``##`` to
  ``####``): an ATX heading (``#`` ... ``######``, also inside a blockquote or a list item) moves
  ``HEADING_SHIFT`` levels down (``#`` becomes ``#####``, the rest ``######``) and a Setext
  underline (a line of ``=`` or ``-`` alone, which makes the paragraph above it an ``h1`` or
  ``h2``) has its first character escaped, so it is text;
- code fences: a fence is closed only by a line of the same character, at least as long, with
  nothing after it but spaces and tabs (a no-break space does not close it); a fence left open
  would swallow everything after the text, so then the whole text goes in a blockquote, where
  the fence ends with the quote.

Headings and underlines inside a code fence are left as they are (they are code there).
"""

from __future__ import annotations

import re

HEADING_SHIFT = 4
_LINE_BREAKS = re.compile("\r\n|[\r\u2028]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_CONTAINER = r"^((?:[ \t]*>|[ \t]*(?:[-+*]|\d{1,9}[.)])(?=[ \t]))*[ \t]*)"
_ATX = re.compile(_CONTAINER + r"(#{1,6})(?=[ \t]|$)")
_SETEXT = re.compile(_CONTAINER + r"(=+|-+)[ \t]*$")


def normalize_lines(text: str) -> str:
    """Every line ending cmark-gfm (or a browser showing the source) knows as ``\\n``; a
    paragraph separator as a blank line."""
    return _LINE_BREAKS.sub("\n", text).replace("\u2029", "\n\n")


def _fence_after(opener: str | None, marker: str, rest: str) -> str | None:
    """The open fence after a line that looks like a fence (``marker`` and what follows it)."""
    if opener is None:
        return None if marker[0] == "`" and "`" in rest else marker
    closes = marker[0] == opener[0] and len(marker) >= len(opener) and not rest.strip(" \t")
    return None if closes else opener


def _by_fences(text: str) -> tuple[list[tuple[str, bool]], bool]:
    """``text``'s lines (``\n`` endings), each with True when the page parses it as Markdown and
    HTML (neither a fence line nor inside a fence); True when a fence is left open at the end."""
    lines: list[tuple[str, bool]] = []
    opener: str | None = None
    for line in text.split("\n"):
        fence = _FENCE.match(line)
        if fence:
            opener = _fence_after(opener, fence.group(1), fence.group(2))
        lines.append((line, not fence and opener is None))
    return lines, opener is not None


def outside_fences(text: str) -> str:
    """``text`` (``\n`` line endings) without its code fences' lines: what the page parses as
    Markdown and HTML rather than shows as code."""
    return "\n".join(line for line, markdown in _by_fences(text)[0] if markdown)


def _demote(match: re.Match[str]) -> str:
    return match.group(1) + "#" * min(6, len(match.group(2)) + HEADING_SHIFT)


def _shaped(line: str) -> str:
    return _SETEXT.sub(lambda m: f"{m.group(1)}\\{m.group(2)}", _ATX.sub(_demote, line))


def shape_blocks(text: str) -> tuple[str, bool]:
    """``text`` (``\\n`` line endings) with its headings moved down and its Setext underlines
    made text outside code fences; True when a fence is left open at its end."""
    lines, left_open = _by_fences(text)
    return "\n".join(_shaped(line) if markdown else line for line, markdown in lines), left_open


def quoted(text: str) -> str:
    """``text`` as one blockquote (a fence inside ends where the quote does)."""
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def contained(text: str) -> str:
    """``text`` shaped (``shape_blocks``), in a blockquote when a fence would stay open."""
    body, open_fence = shape_blocks(normalize_lines(text))
    return quoted(body) if open_fence else body
