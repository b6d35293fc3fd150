"""A budget refusal from outside the harness, read from the refused request's error text.

AWF's api-proxy answers 403 once a run's budget is spent (gh-aw-firewall
``guards/ai-credits-guard.js``, ``guards/common-guard-checks.js``)::

    {"error": {"type": "ai_credits_limit_exceeded",
               "message": "Maximum AI credits exceeded (1000.25 / 1000).",
               "total_ai_credits": 1000.25, "max_ai_credits": 1000, "hard_cap": false}}

(``effective_tokens_limit_exceeded`` for the legacy effective-token budget). The provider layer
classifies it as the ``budget`` error kind; ``refusal`` says which budget kind it was and, when
the proxy states them, how much was used of what limit: the proxy's own accounting, which the
run's record shows as such (its pricing may differ from the harness's).
"""

from __future__ import annotations

import math
import re

from aw_action.lazy_dataclass import dataclass

_NUMBER = r"([0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)"
_STATED = re.compile(rf"exceeded \({_NUMBER} / {_NUMBER}\)")
_FIELDS = {
    "used": re.compile(rf'"total_(?:ai_credits|effective_tokens)"\s*:\s*{_NUMBER}'),
    "limit": re.compile(rf'"max_(?:ai_credits|effective_tokens)"\s*:\s*{_NUMBER}'),
}


@dataclass(frozen=True)
class Refusal:
    budget: str
    """The budget kind's name (``ai_credits`` or ``effective_tokens``)."""
    used: float | None
    limit: float | None


def _finite(text: str | None) -> float | None:
    if text is None:
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def refusal(message: str | None) -> Refusal:
    text = message or ""
    budget = "effective_tokens" if "effective_tokens_limit_exceeded" in text else "ai_credits"
    found = {name: pattern.search(text) for name, pattern in _FIELDS.items()}
    used = _finite(m.group(1)) if (m := found["used"]) else None
    limit = _finite(m.group(1)) if (m := found["limit"]) else None
    if (stated := _STATED.search(text)) is not None:
        used = used if used is not None else _finite(stated.group(1))
        limit = limit if limit is not None else _finite(stated.group(2))
    return Refusal(budget, used, limit)
