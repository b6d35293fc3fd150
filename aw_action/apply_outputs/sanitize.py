"""Make agent-written text safe to post, the way gh-aw's ``sanitize_content_core.cjs`` does.

In order: Unicode hardening (NFC; ``@`` smuggled as an HTML entity decoded so it is seen;
zero-width and bidi-override characters removed; full-width ASCII folded), ANSI escapes and
control characters removed, every ``@mention`` put in backticks (no notifications), HTML
comments removed and unclosed ones broken (so nothing can hide, or forge the apply job's marker), HTML tags other than a
small safe set turned into ``(tag)``, non-https URLs and https URLs outside GitHub's domains
replaced by ``(domain/redacted)``, the size capped, and ``fixes #1``-style phrases put in
backticks (no auto-closing). gh-aw's command neutralisation, reference filtering and code-fence
balancing are not done (they depend on settings aw-harness does not have).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping
from urllib.parse import urlparse

DEFAULT_ALLOWED_DOMAINS = ("github.com", "github.io", "githubusercontent.com", "githubassets.com", "github.dev")
_SAFE_TAGS = (
    "b blockquote br code details em h1 h2 h3 h4 h5 h6 hr i li ol p pre strong sub summary sup table tbody td th"
)
ALLOWED_TAGS = frozenset([*_SAFE_TAGS.split(), "thead", "tr", "ul"])
MAX_LINES = 65_000

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069]")
_FULL_WIDTH = re.compile("[\uff01-\uff5e]")
_ANSI = re.compile(r"\x1b\[[0-9;]*[mGKH]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MENTION = re.compile(r"(^|[^\w`])@([A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?(?:/[A-Za-z0-9._-]+)?)", re.ASCII)
_COMMENT = re.compile(r"<!--[\s\S]*?--!?>")
_CDATA = re.compile(r"<!\[CDATA\[([\s\S]*?)\]\]>")
_TAG = re.compile(r"<(/?[A-Za-z!][^>]*?)>")
_TAG_NAME = re.compile(r"^/?\s*([A-Za-z][A-Za-z0-9]*)")
_PROTOCOL = re.compile(
    r"((?:http|ftp|file|ssh|git)://([\w.-]*)(?:[^\s]*)|(?:data|javascript|vbscript|about|mailto|tel):[^\s]+)",
    re.IGNORECASE,
)
_HTTPS = re.compile(r"https://([\w.-]+(?::\d+)?)(/(?:(?!https://)[^\s,])*)?", re.IGNORECASE)
_TRIGGER = re.compile(r"\b(fixes?|closes?|resolves?|fix|close|resolve)\s+#(\w+)", re.IGNORECASE)


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
    text = _ZERO_WIDTH.sub("", text)
    text = _BIDI.sub("", text)
    return _FULL_WIDTH.sub(lambda m: chr(ord(m.group(0)) - 0xFEE0), text)


def strip_controls(text: str) -> str:
    return _CONTROL.sub("", _ANSI.sub("", text))


def neutralize_mentions(text: str) -> str:
    return _MENTION.sub(lambda m: f"{m.group(1)}`@{m.group(2)}`", text)


def remove_comments(text: str) -> str:
    previous = None
    while previous != text:
        previous, text = text, _COMMENT.sub("", text)
    return text


def convert_tags(text: str) -> str:
    text = _CDATA.sub(
        lambda m: "(![CDATA[" + re.sub(r"<(/?[A-Za-z][A-Za-z0-9]*(?:[^>]*?))>", r"(\1)", m.group(1)) + "]])", text
    )

    def tag(match: re.Match[str]) -> str:
        name = _TAG_NAME.match(match.group(1))
        if name and name.group(1).lower() in ALLOWED_TAGS:
            return match.group(0)
        return f"({match.group(1)})"

    return _TAG.sub(tag, text)


def _domain_label(host: str) -> str:
    parts = [re.sub(r"[^a-zA-Z0-9]", "", p) for p in host.split(".")]
    parts = [p for p in parts if p]
    label = ".".join(parts[:3]) + ("..." if len(parts) > 3 else "")
    return f"({label}/redacted)" if label else "(redacted)"


def _allowed(host: str, allowed: Iterable[str]) -> bool:
    host = host.lower()
    for domain in allowed:
        domain = domain.lower()
        if domain.startswith("*."):
            domain = domain[2:]
        if host == domain or host.endswith("." + domain):
            return True
    return False


def redact_urls(text: str, allowed: Iterable[str]) -> str:
    allowed = tuple(allowed)
    text = _PROTOCOL.sub(lambda m: _domain_label(m.group(2).lower()) if m.group(2) else "(redacted)", text)
    return _HTTPS.sub(
        lambda m: (
            m.group(0) if _allowed(m.group(1).split(":")[0], allowed) else _domain_label(m.group(1).split(":")[0])
        ),
        text,
    )


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
    return _TRIGGER.sub(lambda m: f"`{m.group(1)} #{m.group(2)}`", text)


def allowed_domains(env: Mapping[str, str]) -> list[str]:
    """gh-aw's defaults plus the hosts of ``GITHUB_SERVER_URL`` and ``GITHUB_API_URL`` (GHES)."""
    out = list(DEFAULT_ALLOWED_DOMAINS)
    for name in ("GITHUB_SERVER_URL", "GITHUB_API_URL"):
        host = urlparse(env.get(name, "")).hostname
        if host:
            out.append(host)
    return out


def sanitize_body(text: str, max_chars: int, domains: Iterable[str] = DEFAULT_ALLOWED_DOMAINS) -> str:
    """The whole pipeline; the result is at most ``max_chars`` characters."""
    text = strip_controls(harden_unicode(text))
    text = neutralize_mentions(text)
    text = convert_tags(remove_comments(text)).replace("<!--", "(!--")  # an unclosed one would hide what follows
    text = neutralize_triggers(redact_urls(text, domains))
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
