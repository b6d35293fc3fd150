"""The agent's answer as Markdown a page can hold: rendered, never able to reshape what follows.

The answer is model-produced, so before it is shown (the step summary, the progress comment) it
goes through the project's sanitiser for text posted to GitHub (``security/public_text``:
mentions and closing keywords made inert, links only to GitHub, comments and invisible
characters removed) with no HTML tag kept, so no element it opens stays open around the page.
What Markdown alone could still carry past its end is dealt with here:

- a code fence it opens and never closes would swallow the rest of the page: then the whole
  answer goes in a blockquote, which ends the fence where the quote ends;
- its headings are moved three levels down (``#`` becomes ``####``), under the page's own.

The result is separated from what follows by a blank line (a lazy paragraph line cannot join it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aw_action.security.public_text import DEFAULT_ALLOWED_DOMAINS, sanitize_body

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)")
HEADING_SHIFT = 3


@dataclass(frozen=True)
class Answer:
    markdown: str
    cut: bool
    """The answer was longer than the room given and is shown in part."""


def _fence_open(opener: str | None, marker: str, rest: str) -> str | None:
    """The open fence after a line that looks like a fence (``marker`` and what follows)."""
    if opener is None:
        return None if marker[0] == "`" and "`" in rest else marker
    closes = marker[0] == opener[0] and len(marker) >= len(opener) and not rest.strip()
    return None if closes else opener


def shape(text: str) -> tuple[str, bool]:
    """Headings moved down outside code fences; True when a fence is left open at the end."""
    out: list[str] = []
    opener: str | None = None
    for line in text.split("\n"):
        fence = _FENCE.match(line)
        if fence:
            opener = _fence_open(opener, fence.group(1), fence.group(2))
        elif opener is None:
            line = _HEADING.sub(lambda m: m.group(1) + "#" * min(6, len(m.group(2)) + HEADING_SHIFT), line)
        out.append(line)
    return "\n".join(out), opener is not None


def quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.split("\n"))


def answer_markdown(text: str, max_chars: int, domains: tuple[str, ...] = DEFAULT_ALLOWED_DOMAINS) -> Answer:
    """``text`` sanitised and shaped (module docstring), at most about ``max_chars`` characters."""
    clean = sanitize_body(text, max_chars, domains, allowed_tags=frozenset())
    body, open_fence = shape(clean)
    return Answer(quoted(body) if open_fence else body, len(text) > max_chars)
