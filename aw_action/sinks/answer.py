"""The agent's answer as Markdown a page can hold: rendered, never able to reshape what follows.

The answer is model-produced, so before it is shown (the step summary, the progress comment) it
goes through the one sanitiser for what the harness posts (``security/public_text.sanitize_body``:
mentions and closing keywords made inert, links only to GitHub, comments and invisible
characters removed, headings moved below the page's own, a fence left open contained in a
blockquote) with no HTML tag kept, so no element it opens stays open around the page. The
result is separated from what follows by a blank line (a lazy paragraph line cannot join it).
"""

from __future__ import annotations

from aw_action.lazy_dataclass import dataclass
from aw_action.security.untrusted_text.public_text import DEFAULT_ALLOWED_DOMAINS, sanitize_body


@dataclass(frozen=True)
class Answer:
    markdown: str
    cut: bool
    """The answer was longer than the room given and is shown in part."""


def answer_markdown(text: str, max_chars: int, domains: tuple[str, ...] = DEFAULT_ALLOWED_DOMAINS) -> Answer:
    """``text`` sanitised and shaped (module docstring), at most about ``max_chars`` characters."""
    return Answer(sanitize_body(text, max_chars, domains, allowed_tags=frozenset()), len(text) > max_chars)
