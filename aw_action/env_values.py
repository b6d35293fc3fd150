"""Numbers read from environment variables, checked once the same way for every reader."""

from __future__ import annotations

import math
from collections.abc import Mapping

from aw_action.exits import InvocationError


def env_seconds(env: Mapping[str, str], name: str, default: float) -> float:
    """A positive number of seconds from ``name``; unset or blank is ``default``, anything else
    that is not a positive finite number is an invocation error naming the variable."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise InvocationError(f"{name}: expected a positive number of seconds, got {raw[:40]!r}")
    return value
