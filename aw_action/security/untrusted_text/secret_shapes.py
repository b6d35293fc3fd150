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
from collections.abc import Callable

TOKEN_SHAPES: tuple[tuple[str, str], ...] = (
    ("GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{20,255}\b"),
    ("GitHub fine-grained token", r"\bgithub_pat_[A-Za-z0-9_]{20,255}"),
    ("Anthropic key", r"\bsk-ant-[A-Za-z0-9_-]{16,}"),
    ("OpenAI-style key", r"\bsk-[A-Za-z0-9_-]{20,}"),
    ("Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("Slack webhook", r"hooks\.slack\.com/services/[A-Za-z0-9/_-]{16,}"),
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    ("npm token", r"\bnpm_[A-Za-z0-9]{30,}"),
)
"""``(what, regex)``: tokens whose prefix says what they are."""
TOKENS = re.compile("|".join(f"(?:{regex})" for _, regex in TOKEN_SHAPES))
URL_PASSWORD = re.compile(r"(?P<head>\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@]*:)(?P<password>[^\s/?#@]+)(?=@)")
"""A URL's password: group ``password``, between ``scheme://user:`` and ``@``."""


def shaped_secrets(text: str) -> list[str]:
    """The secrets by shape in ``text``: each token, and each URL's password."""
    return [m.group(0) for m in TOKENS.finditer(text)] + [m.group("password") for m in URL_PASSWORD.finditer(text)]


def mask_shapes(text: str, mask: str, keep: Callable[[str], bool] = lambda token: False) -> str:
    """``text`` with each secret by shape replaced by ``mask`` (a URL keeps its user and host);
    a token ``keep`` accepts (a known placeholder) stays."""
    if not text:
        return text
    text = TOKENS.sub(lambda m: m.group(0) if keep(m.group(0)) else mask, text)
    return URL_PASSWORD.sub(lambda m: m.group("head") + mask, text)
