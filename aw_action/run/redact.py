"""One redactor for every sink: secrets never reach stderr, files, summaries or spans.

The secrets are the *values* of credential variables (found by name in the environment), plus
any value registered at run time (OTLP headers, action inputs). AWF's placeholder credentials
(``ai/credentials.is_awf_placeholder``) are not secrets: the proxy holds the real key. Every sink
passes text or JSON-able objects through ``Redactor`` before writing.

What is masked, for each secret: the value itself; each line of a multi-line value (a PEM key)
that is at least ``MIN_SECRET_LENGTH`` long (shorter lines, such as an empty line or ``==``,
are not secrets and stay); and, for values of at least ``DERIVED_MIN_LENGTH`` characters, its
encodings (``encoded_forms``): reversed, hex (either case) and base64 (standard and URL-safe,
at each of the three byte alignments it can have inside a longer base64 text), the hex and
base64 forms also when wrapped over lines (``base64`` wraps at 76 columns, ``xxd -p`` at 60).
Secrets by shape are masked too, known or not (``security/untrusted_text/secret_shapes.py``: tokens with their
issuer's prefix, such as ``ghp_`` or ``sk-ant-``, and a URL's password), except AWF's
placeholders; and a shaped secret any environment variable holds is a known secret (its
encodings masked too). Redaction is the second line of defence: the first is that the agent cannot read the secret.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

from aw_action.ai.credentials import is_awf_placeholder, is_credential_name
from aw_action.security.untrusted_text.secret_shapes import mask_shapes, shaped_secrets

MASK = "***"
MIN_SECRET_LENGTH = 6
"""Shorter values are not treated as secrets: masking them would garble ordinary text."""
DERIVED_MIN_LENGTH = 8
"""Shorter secrets get no encoded forms: short encodings could turn up in ordinary output."""

_NOT_A_SECRET = re.compile(r"^(\d+(\.\d+)?|true|false|yes|no|none|null)$", re.IGNORECASE)
"""Values that cannot be credentials; masking them would garble every number in the output."""


def is_secret_name(name: str) -> bool:
    """True for environment variable names that hold credentials (``ANTHROPIC_API_KEY``,
    ``GITHUB_TOKEN``, ``INPUT_OPENAI-API-KEY``, ``OTEL_EXPORTER_OTLP_HEADERS``, ...): the
    credential table's rows and every name that says so (``ai/credentials.is_credential_name``)."""
    return is_credential_name(name)


GH_AW_OTLP_ENDPOINTS = "GH_AW_OTLP_ENDPOINTS"
"""gh-aw's OTLP fan-out list ``[{"url", "headers": "k=v,..."}]``: its header values are secrets."""


def _gh_aw_otlp_headers(raw: str) -> list[str]:
    try:
        entries = json.loads(raw)
    except ValueError:
        return []
    specs = [e.get("headers") for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []
    return [value for spec in specs if isinstance(spec, str) for value in header_values(spec)]


def secrets_from_env(env: Mapping[str, str]) -> list[str]:
    found: list[str] = _gh_aw_otlp_headers(env.get(GH_AW_OTLP_ENDPOINTS, ""))
    for name, value in env.items():
        found.extend(s for s in shaped_secrets(value or "") if not is_awf_placeholder(s))
        if not value or not is_secret_name(name) or _NOT_A_SECRET.match(value.strip()) or is_awf_placeholder(value):
            continue
        found.append(value)
        if "HEADERS" in name.upper():
            found.extend(header_values(value))
    return found


def header_values(spec: str) -> list[str]:
    """Values of an OTLP-style header list ``k=v,k2=v2`` (also the part after ``Bearer ``), both
    as written and URL-decoded (``Bearer%20xyz`` is sent as ``Bearer xyz``)."""
    out: list[str] = []
    for part in spec.split(","):
        _, _, raw = part.partition("=")
        for value in dict.fromkeys((raw.strip(), unquote(raw.strip()))):
            if value:
                out.append(value)
                if " " in value:
                    out.append(value.split(" ", 1)[1])
    return out


def _wrapped(text: str) -> str:
    """A regex for ``text`` that also matches it broken over lines at any point."""
    return r"(?:\r?\n)?".join(re.escape(ch) for ch in text)


def encoded_forms(secret: str) -> list[str]:
    """Regex sources that match ``secret`` reversed, hex- or base64-encoded (see the module
    docstring); empty for secrets shorter than ``DERIVED_MIN_LENGTH``.

    Inside a longer base64 text (``env | base64``) a secret starts at a byte offset k (0, 1 or
    2, modulo 3); for each k only the characters whose six bits all come from the secret are
    certain, and those are what is matched."""
    if len(secret) < DERIVED_MIN_LENGTH:
        return []
    data = secret.encode("utf-8")
    forms = [re.escape(secret[::-1]), _wrapped(data.hex()), _wrapped(data.hex().upper())]
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for k in range(3):
            encoded = encode(b"\0" * k + data).decode("ascii")
            core = encoded[-(-8 * k // 6) : 8 * (k + len(data)) // 6]
            if len(core) >= DERIVED_MIN_LENGTH:
                forms.append(_wrapped(core))
    return list(dict.fromkeys(forms))


def _with_lines(secret: str) -> list[str]:
    """The secret, and each line of a multi-line secret long enough to be one."""
    value = secret.strip()
    found = [value] if len(value) >= MIN_SECRET_LENGTH else []
    if "\n" in value or "\r" in value:
        found += [line.strip() for line in value.splitlines() if len(line.strip()) >= MIN_SECRET_LENGTH]
    return found


MEMO_MAX_CHARS = 8 * 1024 * 1024
"""The text the redactor remembers, at most (then it forgets it all and starts again)."""
MEMO_MAX_STRING = 256 * 1024
"""Longer strings are redacted each time, not remembered."""


class Redactor:
    """Replaces every known secret value, and its encodings, with ``***``; longest first.

    Redaction once per record: the same event reaches several sinks (the JSONL stream, each
    record file), each building its own record from the same strings (the message text, a tool's
    arguments and output, the keys). Each distinct string is redacted once and its redacted form
    remembered (up to ``MEMO_MAX_CHARS``), so a record's strings cost a lookup in every later
    writer; the memory is forgotten whenever a secret is added, so nothing redacted with fewer
    secrets is ever reused."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self._stale = False
        self._memo: dict[str, str] = {}
        self._memo_chars = 0
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        fresh = {value for s in secrets if s for value in _with_lines(s)}
        if fresh - self._secrets:
            self._secrets |= fresh
            self._stale = True  # compiled at the next use: several adds in a row compile once
            self._memo = {}  # a new object: a reader holding the old one never sees a stale entry
            self._memo_chars = 0

    def _compiled(self) -> re.Pattern[str] | None:
        """The pattern of every secret added so far. Until it is compiled the previous one stays in
        place (a reader on another thread never finds none), and it is marked fresh only once
        compiled."""
        if self._stale:
            secrets = sorted(self._secrets, key=len, reverse=True)
            literals = [re.escape(s) for s in secrets]
            derived = sorted({f for s in secrets for f in encoded_forms(s)}, key=len, reverse=True)
            self._pattern = re.compile("|".join(literals + derived))
            self._stale = len(secrets) != len(self._secrets)  # one added meanwhile: compile again
        return self._pattern

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    def text(self, value: str) -> str:
        if not value:
            return value
        memo = self._memo
        done = memo.get(value)
        if done is not None:
            return done
        pattern = self._compiled()
        clean = pattern.sub(MASK, value) if pattern is not None else value
        clean = mask_shapes(clean, MASK, keep=is_awf_placeholder)
        if len(value) <= MEMO_MAX_STRING and memo is self._memo:  # no secret was added meanwhile
            if self._memo_chars > MEMO_MAX_CHARS:
                memo.clear()
                self._memo_chars = 0
            memo[value] = clean
            self._memo_chars += len(value) + len(clean)
        return clean

    def obj(self, value: Any) -> Any:
        """Redact every string inside a JSON-like value (dict keys included)."""
        kind = type(value)  # the exact JSON types first: no ABC check for the common case
        if kind is str:
            return self.text(value)
        if kind is dict:
            text = self.text
            return {text(k) if type(k) is str else text(str(k)): self.obj(v) for k, v in value.items()}
        if kind is list:
            return [self.obj(v) for v in value]
        if value is None or kind is int or kind is float or kind is bool:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.obj(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.obj(v) for v in value]
        return value


def run_redactor(env: Mapping[str, str], otlp_headers: Mapping[str, str] | None = None) -> Redactor:
    """The run's redactor: every credential in ``env`` and every configured OTLP header value."""
    redactor = Redactor(secrets_from_env(env))
    for value in (otlp_headers or {}).values():
        redactor.add(value, *header_values(f"h={value}"))
    return redactor
