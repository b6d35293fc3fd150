"""One redactor for every sink: secrets never reach stderr, files, summaries or spans.

The secrets are the *values* of credential variables (found by name in the environment), plus
any value registered at run time (OTLP headers, action inputs). AWF's placeholder credentials
(``ai/catalog.is_awf_placeholder``) are not secrets: the proxy holds the real key. Every sink
passes text or JSON-able objects through ``Redactor`` before writing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote

from aw_action.ai.catalog import is_awf_placeholder

MASK = "***"
MIN_SECRET_LENGTH = 6
"""Shorter values are not treated as secrets: masking them would garble ordinary text."""

_SECRET_NAME = re.compile(
    r"(API_KEY|APIKEY|TOKEN(?!S)|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE_KEY|OTLP.*HEADERS|AUTHORIZATION)",
    re.IGNORECASE,
)
"""``TOKEN`` but not ``TOKENS``: ``MAX_TOKENS=100000`` is a setting, not a credential."""

_NOT_A_SECRET = re.compile(r"^(\d+(\.\d+)?|true|false|yes|no|none|null)$", re.IGNORECASE)
"""Values that cannot be credentials; masking them would garble every number in the output."""


def is_secret_name(name: str) -> bool:
    """True for environment variable names that hold credentials (``ANTHROPIC_API_KEY``,
    ``GITHUB_TOKEN``, ``INPUT_OPENAI-API-KEY``, ``OTEL_EXPORTER_OTLP_HEADERS``, ...)."""
    return bool(_SECRET_NAME.search(name.replace("-", "_")))


def secrets_from_env(env: Mapping[str, str]) -> list[str]:
    found: list[str] = []
    for name, value in env.items():
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


class Redactor:
    """Replaces every known secret value with ``***``; longest secrets first."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._pattern: re.Pattern[str] | None = None
        self.add(*secrets)

    def add(self, *secrets: str) -> None:
        fresh = {s.strip() for s in secrets if s and len(s.strip()) >= MIN_SECRET_LENGTH}
        if fresh - self._secrets:
            self._secrets |= fresh
            ordered = sorted(self._secrets, key=len, reverse=True)
            self._pattern = re.compile("|".join(re.escape(s) for s in ordered))

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    def text(self, value: str) -> str:
        if self._pattern is None or not value:
            return value
        return self._pattern.sub(MASK, value)

    def obj(self, value: Any) -> Any:
        """Redact every string inside a JSON-like value (dict keys included)."""
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
