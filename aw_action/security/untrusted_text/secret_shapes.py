"""Secrets recognised by their shape, whatever variable or text holds them.

A value is a secret by shape when it holds a token with a prefix its issuer gives every token of
that kind (GitHub's ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/``github_pat_``, Anthropic's
``sk-ant-``, OpenAI's ``sk-``, Slack's ``xox?-`` and its webhook URLs, AWS access key ids
``AKIA…``/``ASIA…``, npm's ``npm_``), or a URL with a password (``scheme://user:password@host``:
the password is the secret). The one table of these shapes: the tools' environment
(``tool_env.py``) withholds a variable whose value has one, and the redactor (``run/redact.py``)
masks each wherever it appears.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TOKEN_SHAPES: tuple[tuple[str, str, str], ...] = (
    ("GitHub token", r"gh[pousr]_", r"\bgh[pousr]_[A-Za-z0-9]{20,255}\b"),
    ("GitHub fine-grained token", r"github_pat_", r"\bgithub_pat_[A-Za-z0-9_]{20,255}"),
    ("Anthropic key", r"sk-ant-", r"\bsk-ant-[A-Za-z0-9_-]{16,}"),
    ("OpenAI-style key", r"sk-", r"\bsk-[A-Za-z0-9_-]{20,}"),
    ("Slack token", r"xox[abposr]-", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("Slack webhook", r"hooks\.slack\.com/services/", r"hooks\.slack\.com/services/[A-Za-z0-9/_-]{16,}"),
    ("AWS access key id", r"(?:AKIA|ASIA)", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("npm token", r"npm_", r"\bnpm_[A-Za-z0-9]{30,}"),
)
"""``(what, start, regex)``: tokens whose prefix says what they are. ``start`` is the literal
prefix every match of ``regex`` begins with (``regex`` is ``start`` and the rest, after an
optional word boundary: ``tests/security/test_secret_shapes.py``), so a text where no ``start`` occurs
holds no token and its scan stops at once (a 1.3 MB command output: 190 ms -> 4 ms)."""
TOKENS = re.compile("|".join(f"(?:{regex})" for _, _, regex in TOKEN_SHAPES))
STARTS = re.compile("|".join(f"(?:{start})" for _, start, _ in TOKEN_SHAPES))
"""Where a token may begin: the first match of ``STARTS`` is where ``TOKENS`` starts looking."""
URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@]*:)(?P<password>[^\s/?#@]+)(?=@)")
"""A URL's password: group ``password``, between ``scheme://user:`` and ``@``."""


def _tokens(text: str) -> Iterator[re.Match[str]]:
    """``TOKENS``' matches in ``text``, looked for from the first place one may begin (``STARTS``;
    the search keeps the text before it, so a word boundary sees the character before that place)."""
    first = STARTS.search(text)
    return TOKENS.finditer(text, first.start()) if first is not None else iter(())


def _passwords(text: str) -> Iterator[re.Match[str]]:
    return URL_PASSWORD.finditer(text) if "://" in text else iter(())


def shaped_secrets(text: str) -> list[str]:
    """The secrets by shape in ``text``: each token, and each URL's password."""
    return [m.group(0) for m in _tokens(text)] + [m.group("password") for m in _passwords(text)]


def _replaced(text: str, matches: Iterator[re.Match[str]], replace: Callable[[re.Match[str]], str]) -> str:
    parts: list[str] = []
    last = 0
    for match in matches:
        parts += (text[last : match.start()], replace(match))
        last = match.end()
    if not parts:
        return text
    parts.append(text[last:])
    return "".join(parts)


def mask_shapes(text: str, mask: str, keep: Callable[[str], bool] = lambda token: False) -> str:
    """``text`` with each secret by shape replaced by ``mask`` (a URL keeps its user and host);
    a token ``keep`` accepts (a known placeholder) stays."""
    if not text:
        return text
    text = _replaced(text, _tokens(text), lambda m: m.group(0) if keep(m.group(0)) else mask)
    return _replaced(text, _passwords(text), lambda m: m.group("head") + mask)
