r"""The one sanitiser for what the harness posts or shows a person (issue 30), after gh-aw's
``sanitize_content_core.cjs`` and judged against GitHub's renderer (cmark-gfm) in the tests.

Public entry points (docs/architecture.md, "What people see"):

- ``sanitize_body(text, max_chars, domains, allowed_tags)``: agent-written Markdown that the
  harness posts or shows: a safe output's body, the answer in the step summary and the progress
  comment (``sinks/answer.py``), any new kind's text;
- ``sanitize_title(title, prefix, max_chars)``: one line of plain text that may also be read
  outside Markdown: an issue's or pull request's title, which becomes a commit's message;
- ``name_problem(name)``: why a name (a label) cannot be used as written, or None.

``sanitize_body`` in order: line endings as cmark-gfm reads them (``\r``, U+2028: see
``markdown_blocks``), Unicode hardening (NFC; ``@`` and punctuation smuggled as HTML entities,
numeric or named (``&colon;``), decoded so they are seen; full-width ASCII folded; every
invisible character of ``security/sanitize`` removed: zero-width and bidi characters, C0 and C1
controls, variation selectors, the tag block), ANSI escapes removed, backslash escapes that hide
a link's scheme, slashes or user name from the link rules (``https\://``, ``\//host``,
``github.com\@host``) undone (they render the same), HTML comments removed and unclosed ones
broken (so nothing can hide, or forge the apply job's marker), link reference definitions
nothing refers to removed (``[//]: # (...)`` hides text too), links out of GitHub's domains
replaced (``links.py``), HTML tags other than a small safe set turned into ``(tag)`` (a kept tag
that is not closed as often as opened too, and any processing instruction or declaration, so no
HTML block can swallow what follows), then closing keywords (``fixes #1``, ``closes
owner/repo#2``, ``resolved https://github.com/o/r/issues/3``: GitHub's nine keywords: the
keyword, so the source is inert too, where a squash merge makes it a commit message) and
``@mentions`` (``@user``, ``@org/team``, also right after ``_``) made inert, headings moved
below the harness's own and a fence left open contained (``markdown_blocks``), and the size
capped.

Inert means inside ``<code>...</code>``: GitHub neither mentions nor links nor closes from text
in a code element, and that tag holds wherever the text lands: in a paragraph, a code span or
block, or a raw HTML block (where backticks, gh-aw's choice, are plain characters; a stray
backtick before one can also pair with gh-aw's backticks and leave the mention outside). gh-aw's
command neutralisation and reference filtering are not done (they depend on settings aw-harness
does not have).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from html.entities import html5
from urllib.parse import urlparse

from aw_action.environment.runner import RunnerFacts
from aw_action.security.untrusted_text.links import redact_urls
from aw_action.security.untrusted_text.markdown_blocks import contained, normalize_lines, outside_fences
from aw_action.security.untrusted_text.sanitize import strip_invisible, strip_reference_definitions

DEFAULT_ALLOWED_DOMAINS = ("github.com", "github.io", "githubusercontent.com", "githubassets.com", "github.dev")
_SAFE_TAGS = "b blockquote br code details em h5 h6 hr i li ol p pre strong sub summary sup table tbody td th"
"""No ``h1``-``h4``: a heading the agent wrote never stands level with the harness's own."""
ALLOWED_TAGS = frozenset([*_SAFE_TAGS.split(), "thead", "tr", "ul"])
MAX_LINES = 65_000

_FULL_WIDTH = re.compile("[\uff01-\uff5e]")
_ANSI = re.compile(r"\x1b\[[0-9;]*[mGKH]")
_MENTION = re.compile(
    r"(^|[^A-Za-z0-9])(@[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?(?:/[A-Za-z0-9._-]+)?)", re.ASCII
)
_COMMENT = re.compile(r"<!--[\s\S]*?--!?>")
_CDATA = re.compile(r"<!\[CDATA\[([\s\S]*?)\]\]>")
_TAG = re.compile(r"<(/?[A-Za-z!][^<>]*)>")
"""A tag: its body holds no ``<``, so each attempt stops at the next one (linear; ``[^>]*?`` took
17 s on ``"<a" * 30000``), and ``<a title="x<y">`` is an unfinished ``<a`` and a tag ``<y">``."""
_UNFINISHED = re.compile(r"<(?=/?[A-Za-z][^<>]*(?:<|\Z))")
"""A ``<`` that opens a tag no ``>`` finishes before the next ``<`` or the end: ``<pre``, ``<script``,
``<style`` or ``<textarea`` so left would start a raw HTML block that runs to the end of the page."""
_TAG_NAME = re.compile(r"^/?\s*([A-Za-z][A-Za-z0-9]*)")
_KEYWORD = r"close[sd]?|fix(?:e[sd])?|resolve[sd]?"
_ISSUE = r"\[?(?:#\w+|GH-\d+\b|[\w.-]+/[\w.-]+#\d+\b|https?://[^\s<>]+?/(?:issues|pull)/\d+\b)"
_TRIGGER = re.compile(
    rf"(^|[^A-Za-z0-9-])({_KEYWORD})(?![A-Za-z0-9])(?=[*_~]*:?[*_~]*\s+[*_~]*{_ISSUE})", re.IGNORECASE
)
"""GitHub's closing keywords before a reference: ``#N``, ``GH-N``, ``owner/repo#N`` or an
issue's or pull request's URL, with a colon or emphasis between them too. Only the keyword is
made inert: then it stands right before no reference, neither rendered nor in the source, which
is what a squash merge puts in a commit message (``<code>closes</code> #1``)."""
_FOOTNOTE_DEFINITION = re.compile(r"^((?:[ \t]{0,3}>)*[ \t]{0,3})\[\^", re.MULTILINE)
"""A footnote's definition (``[^1]: text``): GitHub renders it at the very end of the page, after
the harness's own footer, where a forged harness line would stand; escaped, it is a plain line."""
_NAMED_ENTITY = re.compile(r"&([A-Za-z][A-Za-z0-9]{1,31};)")
_HIDING_ESCAPE = re.compile(r"\\([:/@])")
_DECLARATION = re.compile(r"<(?=[?!])")
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _entity(match: re.Match[str], base: int) -> str:
    code = int(match.group(1), base)
    if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
        return match.group(0)
    return chr(code)


def _named(match: re.Match[str]) -> str:
    """A named entity that stands for one printable ASCII character, as that character (cmark-gfm
    decodes them in link destinations: ``https&colon;//`` is a link); any other stays."""
    value = html5.get(match.group(1))
    return value if value is not None and len(value) == 1 and " " < value < "\x7f" else match.group(0)


MAX_ENTITY_LEVELS = 8
"""How many times entities are decoded: one entity inside another (``&amp;colon;``) is seen as
what the renderer's single decoding makes of what is left (``&colon;``, a colon)."""


def _decode_entities(text: str) -> str:
    text = re.sub(r"&(?:amp;)?commat;", "@", text, flags=re.IGNORECASE)
    text = _NAMED_ENTITY.sub(_named, text)
    text = re.sub(r"&(?:amp;)?#(\d{1,7});", lambda m: _entity(m, 10), text)
    return re.sub(r"&(?:amp;)?#[xX]([0-9a-fA-F]{1,6});", lambda m: _entity(m, 16), text)


def harden_unicode(text: str) -> str:
    text = unicodedata.normalize("NFC", text)
    for _ in range(MAX_ENTITY_LEVELS):
        decoded = _decode_entities(text)
        if decoded == text:
            break
        text = decoded
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


_CODE_SPAN = re.compile(r"(`+)(?:(?!\1)[\s\S])*?\1")
"""An inline code span: a tag written inside one is shown, not parsed, so it opens or closes
nothing (a `` `</details>` `` before a ``<details>`` counted as its close)."""


def convert_tags(text: str, allowed: frozenset[str] = ALLOWED_TAGS) -> str:
    text = _CDATA.sub(
        lambda m: "(![CDATA[" + re.sub(r"<(/?[A-Za-z][A-Za-z0-9]*(?:[^>]*?))>", r"(\1)", m.group(1)) + "]])", text
    )

    opened: dict[str, int] = {}
    unbalanced: set[str] = set()
    for found in _TAG.finditer(_CODE_SPAN.sub("", outside_fences(text))):  # as the page parses them
        name = _TAG_NAME.match(found.group(1))
        if name and not found.group(1).rstrip().endswith("/"):
            key = name.group(1).lower()
            opened[key] = opened.get(key, 0) + (-1 if found.group(1).startswith("/") else 1)
            if opened[key] < 0:  # a close before its open (``</details><details>``) leaves one open
                unbalanced.add(key)
    unbalanced |= {name for name, depth in opened.items() if depth}
    balanced = {name for name in allowed if name not in unbalanced or name in ("br", "hr")}

    def tag(match: re.Match[str]) -> str:
        name = _TAG_NAME.match(match.group(1))
        if name and name.group(1).lower() in balanced:
            return match.group(0)
        return f"({match.group(1)})"

    return _UNFINISHED.sub("&lt;", _DECLARATION.sub("&lt;", _TAG.sub(tag, text)))


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


def allowed_domains(runner: RunnerFacts) -> list[str]:
    """gh-aw's defaults plus the hosts of ``GITHUB_SERVER_URL`` and ``GITHUB_API_URL`` (GHES)."""
    out = list(DEFAULT_ALLOWED_DOMAINS)
    for url in (runner.server_url, runner.api_url):
        host = urlparse(url).hostname
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
    text = normalize_lines(strip_controls(harden_unicode(normalize_lines(text))))  # entities may make a CR
    text = _HIDING_ESCAPE.sub(r"\1", text)
    text = remove_comments(text).replace("<!--", "(!--")  # an unclosed one would hide what follows
    text = _FOOTNOTE_DEFINITION.sub(r"\1\\[^", strip_reference_definitions(text)[0])
    text = convert_tags(redact_urls(text, domains), allowed_tags)
    text = neutralize_mentions(neutralize_triggers(text)).strip()
    limit = max_chars
    while True:  # a blockquote that contains an open fence adds "> " to each line
        shaped = contained(truncate(text, limit))
        if len(shaped) <= max_chars or limit <= 0:
            return shaped[:max_chars]
        limit -= len(shaped) - max_chars


def sanitize_title(title: str, prefix: str, max_chars: int, domains: Iterable[str] = DEFAULT_ALLOWED_DOMAINS) -> str:
    """gh-aw's ``sanitizeTitle`` + ``applyTitlePrefix``: hardened, one line, a prefix the agent
    already wrote (also as ``prefix:``) removed, then the configured prefix added once. A closing
    keyword before a reference and a mention are put in backticks (```closes` #1``,
    ```@octocat```; more of them than any run the title holds, so none of its own can pair
    with them): inert in the title and in the commit message it becomes, where no Markdown
    applies but the keyword no longer stands right before the reference; links off ``domains``
    are replaced as in a body."""
    text = " ".join(strip_controls(harden_unicode(normalize_lines(title))).split())
    text = redact_urls(_HIDING_ESCAPE.sub(r"\1", text), domains)
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)

    def spanned(match: re.Match[str]) -> str:  # a space keeps an adjacent backtick off the run
        before = match.group(1) + (" " if match.group(1).endswith("`") else "")
        after = " " if match.string[match.end() : match.end() + 1] == "`" else ""
        return f"{before}{ticks}{match.group(2)}{ticks}{after}"

    text = _MENTION.sub(spanned, _TRIGGER.sub(spanned, text))
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


def name_problem(name: str) -> str | None:
    """Why ``name`` (a label, or another name the harness passes on) cannot be used as written: a
    character nobody sees or that reorders or breaks the text (control, format: zero-width and
    bidi, line and paragraph separators, private use, unassigned, variation selectors, the tag
    block), or None."""
    for char in name:
        if unicodedata.category(char) in _INVISIBLE_CATEGORIES or strip_invisible(char)[1]:
            return f"contains the invisible or control character U+{ord(char):04X}"
    return None
