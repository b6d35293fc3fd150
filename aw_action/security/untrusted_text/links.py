"""Links in agent-written text lead only to GitHub: every other destination becomes a label.

A link's host is judged the way a browser finds it, not by how the text looks:
``https://github.com@evil.example`` goes to ``evil.example`` (what precedes ``@`` is a user
name), ``https:evil.example`` and ``https:/\\evil.example`` go there too (a browser adds the
slashes and reads ``\\`` as ``/``), ``//evil.example`` is relative to github.com's scheme only,
and ``www.evil.example`` is a link by itself (GitHub autolinks it). ``redact_urls`` replaces:

- every URL of another scheme (``http:``, ``ftp:``, ``file:``, ``data:``, ``javascript:``, ...)
  by ``(host/redacted)`` or ``(redacted)``;
- an ``https:`` URL, a protocol-relative ``//host`` and a ``www.`` autolink whose host is not
  an allowed domain (or a subdomain of one) by ``(host/redacted)``;
- a destination in angle brackets (``[t](<https://github.com @evil.example>)``, which may hold
  spaces) as a whole, judged the same way.

A URL ends at whitespace or where another URL starts; its host ends at ``/ ? # \\``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote

_SCHEMES = "https?|ftps?|sftp|file|ssh|git|wss?|data|javascript|vbscript|about|mailto|tel|blob"
_URL = re.compile(rf"(?<![A-Za-z])({_SCHEMES}):((?:(?!(?:{_SCHEMES}):)\S)*)", re.IGNORECASE)
"""Only a letter before the scheme keeps it from being one: cmark-gfm links ``1https://x`` and
``x.https://x`` too."""
_PROTOCOL_RELATIVE = re.compile(r"(?<![A-Za-z0-9+.:/\\-])//(?=[^\s/\\])((?:(?!(?:https?):)\S)*)", re.IGNORECASE)
_WWW = re.compile(r"(?<![A-Za-z0-9@.:/_-])(www\.[^\s<]*)", re.IGNORECASE)
_POINTY = re.compile(r"<\s*((?:(?:https?|ftps?|file|data|javascript):|//)[^<>\n]*)>", re.IGNORECASE)
_HOST = re.compile(r"[^\s:()<>'\"`\[\]]*")
_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})


def host_of(rest: str) -> str:
    """The host a browser reaches for an address after its ``scheme:`` (or a ``//`` address)."""
    authority = re.split(r"[/?#\\]", rest.lstrip("/\\"), maxsplit=1)[0]
    host = unquote(authority.rsplit("@", 1)[-1]).translate(_DOTS)
    if host.startswith("["):
        return host[1:].split("]", 1)[0].lower()
    found = _HOST.match(host)  # text after the host (``)``, ``'>``) ends it
    return (found.group(0) if found else "").rstrip(".").lower()


def _allowed(host: str, allowed: Iterable[str]) -> bool:
    for domain in allowed:
        domain = domain.lower().removeprefix("*.")
        if host == domain or host.endswith("." + domain):
            return True
    return False


def _label(host: str) -> str:
    """``(host/redacted)``, never itself a link (``www.`` would be autolinked, so it goes)."""
    parts = [p for p in (re.sub(r"[^a-zA-Z0-9]", "", part) for part in host.split(".")) if p]
    parts = parts[1:] if parts and parts[0].lower() == "www" else parts
    label = ".".join(parts[:3]) + ("..." if len(parts) > 3 else "")
    return f"({label}/redacted)" if label else "(redacted)"


def redact_urls(text: str, allowed: Iterable[str]) -> str:
    """``text`` with every link that leaves the ``allowed`` domains replaced (module docstring)."""
    allowed = tuple(allowed)

    def pointy(match: re.Match[str]) -> str:
        inner = match.group(1)
        scheme, _, rest = inner.partition(":") if not inner.startswith("//") else ("https", "", inner)
        keep = scheme.lower() == "https" and _allowed(host_of(rest), allowed)
        return match.group(0) if keep else f"<{_label(host_of(rest))}>"

    def url(match: re.Match[str]) -> str:
        scheme, rest = match.group(1).lower(), match.group(2)
        host = host_of(rest) if scheme not in ("data", "javascript", "vbscript", "about", "mailto", "tel") else ""
        if scheme == "https" and host and _allowed(host, allowed):
            return match.group(0)
        return _label(host)

    def relative(match: re.Match[str]) -> str:
        host = host_of(match.group(1))
        return match.group(0) if host and _allowed(host, allowed) else _label(host)

    def www(match: re.Match[str]) -> str:
        host = host_of(match.group(1))
        return match.group(0) if _allowed(host, allowed) else _label(host)

    text = _POINTY.sub(pointy, text)
    text = _URL.sub(url, text)
    text = _PROTOCOL_RELATIVE.sub(relative, text)
    return _WWW.sub(www, text)
