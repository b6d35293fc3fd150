"""Effective tokens and AI credits: pure arithmetic, no run state.

Effective tokens (ET) follow gh-aw's Effective Tokens specification:
``ET = multiplier(model) x (1.0 input + 0.1 cache_read + 4.0 output + 4.0 reasoning + 1.0 cache_write)``.
The per-model multipliers are data (``aw_action/data/model_multipliers.json``: gh-aw's legacy ET
registry as of 2026-05-14, its ``source`` key says exactly where from), looked up
case-insensitively with ``.`` and ``-`` treated alike: the exact id first, then the longest key
that is a ``key-`` prefix of the id, else 1.0 (and the model is reported as unknown).
``GH_AW_MODEL_MULTIPLIERS`` (a JSON object) overrides or adds entries.

One AI credit is $0.01 of estimated cost. The gates that use these figures are in
``run/budget_kinds.py``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from aw_action.ai.catalog import canonical_model_id
from aw_action.ai.types import Usage

WEIGHTS: dict[str, float] = {"input": 1.0, "cache_read": 0.1, "output": 4.0, "reasoning": 4.0, "cache_write": 1.0}
"""gh-aw effective-token weights per normalised token class (``Usage`` field names)."""

USD_PER_CREDIT = 0.01
MULTIPLIER_ENV = "GH_AW_MODEL_MULTIPLIERS"


def _norm(model: str) -> str:
    return model.strip().lower().replace(".", "-")


@cache
def _shipped() -> dict[str, float]:
    text = resources.files("aw_action").joinpath("data", "model_multipliers.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return {_norm(k): float(v) for k, v in data["multipliers"].items()}


def parse_overrides(raw: str | None) -> dict[str, float]:
    """Parse ``GH_AW_MODEL_MULTIPLIERS``; raises ``ValueError`` naming the problem."""
    if not raw or not raw.strip():
        return {}
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("must be a JSON object of model name to number")
    out: dict[str, float] = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
            raise ValueError(f"multiplier for {key!r} must be a finite number >= 0")
        out[_norm(str(key))] = float(value)
    return out


class Multipliers:
    """Model-name to multiplier lookup over the shipped data plus overrides."""

    def __init__(self, overrides: Mapping[str, float] | None = None) -> None:
        self._table = {**_shipped(), **{_norm(k): float(v) for k, v in (overrides or {}).items()}}

    def lookup(self, model: str) -> float | None:
        """The multiplier for ``model`` (a bare id or ``provider/id``; a cloud's spelling of a
        vendor's id is read as that id: ``ai/catalog.canonical_model_id``), or None when unknown."""
        name = _norm(canonical_model_id(model.rsplit("/", 1)[-1]))
        if name in self._table:
            return self._table[name]
        best = max((k for k in self._table if name.startswith(k + "-")), key=len, default=None)
        return None if best is None else self._table[best]

    def get(self, model: str) -> float:
        found = self.lookup(model)
        return 1.0 if found is None else found


def base_weighted_tokens(usage: Usage) -> float:
    return sum(weight * float(getattr(usage, name)) for name, weight in WEIGHTS.items())


def effective_tokens(usage: Usage, multiplier: float) -> float:
    return multiplier * base_weighted_tokens(usage)


CREDIT_PLACES = 8
"""Credits are kept to 8 decimal places (10^-10 USD, far below any price's precision), so binary
fractions do not show: $0.0972 is 9.72 credits, not 9.719999999999999."""


def credits(cost_usd: float | None) -> float | None:
    return None if cost_usd is None else round(cost_usd / USD_PER_CREDIT, CREDIT_PLACES)
