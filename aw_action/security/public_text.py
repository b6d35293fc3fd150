"""Make agent-written text safe to post, after gh-aw's ``sanitize_content_core.cjs``.

In order: Unicode hardening (NFC; ``@`` smuggled as an HTML entity decoded so it is seen;
full-width ASCII folded; every invisible character of ``security/sanitize`` removed: zero-width
and bidi characters, C0 and C1 controls, variation selectors, the tag block), ANSI escapes
removed, HTML comments removed and unclosed ones broken (so nothing can hide, or forge the
apply job's marker), link reference definitions nothing refers to removed (``[//]: # (...)``
hides text too), links out of GitHub's domains replaced (``links.py``), HTML tags other than a
small safe set turned into ``(tag)``, then closing keywords (``fixes #1``, ``closes
owner/repo#2``, ``resolved https://github.com/o/r/issues/3``: GitHub's nine keywords) and
``@mentions`` made inert, and the size capped.

Inert means inside ``<code>...</code>``: GitHub neither mentions nor links nor closes from text
in a code element, and that tag holds wherever the text lands: in a paragraph, a code span or
block, or a raw HTML block (where backticks, gh-aw's choice, are plain characters; a stray
backtick before one can also pair with gh-aw's backticks and leave the mention outside). gh-aw's
command neutralisation, reference filtering and code-fence balancing are not done (they depend
on settings aw-harness does not have).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from urllib.parse import urlparse

from aw_action.security.links import redact_urls
from aw_action.security.sanitize import strip_invisible, strip_reference_definitions

DEFAULT_ALLOWED_DOMAINS = ("github.com", "github.io", "githubusercontent.com", "githubassets.com", "github.dev")
_SAFE_TAGS = (
    "b blockquote br code details em h1 h2 h3 h4 h5 h6 hr i li ol p pre strong sub summary sup table tbody td th"
)
ALLOWED_TAGS = frozenset([*_SAFE_TAGS.split(), "thead", "tr", "ul"])
MAX_LINES = 65_000

_FULL_WIDTH = re.compile("[\uff01-\uff5e]")
_ANSI = re.compile(r"\x1b\[[0-9;]*[mGKH]")
_MENTION = re.compile(r"(^|[^\w])(@[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?(?:/[A-Za-z0-9._-]+)?)", re.ASCII)
_COMMENT = re.compile(r"<!--[\s\S]*?--!?>")
_CDATA = re.compile(r"<!\[CDATA\[([\s\S]*?)\]\]>")
_TAG = re.compile(r"<(/?[A-Za-z!][^>]*?)>")
_TAG_NAME = re.compile(r"^/?\s*([A-Za-z][A-Za-z0-9]*)")
_KEYWORD = r"close[sd]?|fix(?:e[sd])?|resolve[sd]?"
_ISSUE = r"\[?(?:#\w+|GH-\d+\b|[\w.-]+/[\w.-]+#\d+\b|https?://[^\s<>]+?/(?:issues|pull)/\d+\b)"
_TRIGGER = re.compile(rf"(^|[^\w-])((?:{_KEYWORD})\b[*_~]*:?[*_~]*\s+[*_~]*{_ISSUE})", re.IGNORECASE)
"""GitHub's closing keywords with a reference: ``#N``, ``GH-N``, ``owner/repo#N`` or an issue's
or pull request's URL, with a colon or emphasis between them too."""


def _entity(match: re.Match[str], base: int) -> str:
    code = int(match.group(1), base)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return match.group(0)
    return chr(code)


def harden_unicode(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    text = re.sub(r"&(?:amp;)?commat;", "@", text, flags=re.IGNORECASE)
    text = re.sub(r"&(?:amp;)?#(\d{1,7});", lambda m: _entity(m, 10), text)
    text = re.sub(r"&(?:amp;)?#[xX]([0-9a-fA-F]{1,6});", lambda m: _entity(m, 16), text)
    return _FULL_WIDTH.sub(lambda m: chr(ord(m.group(0)) - 0xFEE0), text)


def strip_controls(text: str) -> str:
    """ANSI escapes, then every invisible character (controls but tab and newline included)."""
    return strip_invisible(_ANSI.sub("", text))[0]


def _inert(match: re.Match[str]) -> str:
    """``group(2)`` in a code element; a backslash before it would escape the tag, so a space
    keeps them apart."""
    before = match.group(1)
    return f"{before}{' ' if before == chr(92) else ''}<code>{match.group(2)}</code>"


def neutralize_mentions(text: str) -> str:
    return _MENTION.sub(_inert, text)


def remove_comments(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, _COMMENT.sub("", text)
    return text


def convert_tags(text: str, allowed: frozenset[str] = ALLOWED_TAGS) -> str:
    text = _CDATA.sub(
        lambda m: "(![CDATA[" + re.sub(r"<(/?[A-Za-z][A-Za-z0-9]*(?:[^>]*?))>", r"(\1)", m.group(1)) + "]])", text
    )

    def tag(match: re.Match[str]) -> str:
        name = _TAG_NAME.match(match.group(1))
        if name and name.group(1).lower() in allowed:
            return match.group(0)
        return f"({match.group(1)})"

    return _TAG.sub(tag, text)


def truncate(text: str, max_chars: int) -> str:
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        note = "\n[Content truncated due to line count]"
        text = "\n".join(lines[:MAX_LINES])
        return (text[: max_chars - len(note)] if len(text) + len(note) > max_chars else text) + note
    if len(text) > max_chars:
        note = "\n[Content truncated due to length]"
        return text[: max_chars - len(note)] + note
    return text


def neutralize_triggers(text: str) -> str:
    return _TRIGGER.sub(_inert, text)


def allowed_domains(env: Mapping[str, str]) -> list[str]:
    """gh-aw's defaults plus the hosts of ``GITHUB_SERVER_URL`` and ``GITHUB_API_URL`` (GHES)."""
    out = list(DEFAULT_ALLOWED_DOMAINS)
    for name in ("GITHUB_SERVER_URL", "GITHUB_API_URL"):
        host = urlparse(env.get(name, "")).hostname
        if host:
            out.append(host)
    return out


def sanitize_body(
    text: str,
    max_chars: int,
    domains: Iterable[str] = DEFAULT_ALLOWED_DOMAINS,
    allowed_tags: frozenset[str] = ALLOWED_TAGS,
) -> str:
    """The whole pipeline; the result is at most ``max_chars`` characters. ``allowed_tags``: the
    HTML tags kept (the step summary and the progress comment keep none, so no tag the agent
    wrote can leave an element open around what follows it)."""
    text = strip_controls(harden_unicode(text))
    text = remove_comments(text).replace("<!--", "(!--")  # an unclosed one would hide what follows
    text = strip_reference_definitions(text)[0]
    text = convert_tags(redact_urls(text, domains), allowed_tags)
    text = neutralize_mentions(neutralize_triggers(text))
    return truncate(text.strip(), max_chars)


def sanitize_title(title: str, prefix: str, max_chars: int) -> str:
    """gh-aw's ``sanitizeTitle`` + ``applyTitlePrefix``: hardened, one line, a prefix the agent
    already wrote (also as ``prefix:``) removed, then the configured prefix added once."""
    text = " ".join(strip_controls(harden_unicode(title)).split())
    clean = prefix.strip()
    if clean:
        for variant in (clean + ":", clean + " -", clean + " |"):
            if text.startswith(variant):
                text = text[len(variant) :].strip()
                break
        else:
            while text.startswith(clean):
                text = text[len(clean) :].strip()
        text = prefix + text
    return text[:max_chars]
