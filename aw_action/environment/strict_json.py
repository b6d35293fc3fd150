"""The one strict JSON reader: RFC 8259 numbers only (``NaN``, ``Infinity`` refused), nested at
most ``MAX_JSON_DEPTH`` deep (``TooDeep``); with ``finite``, no number too large for a float
(``1e400``); with ``max_magnitude``, no number that large or larger (a record's counts)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

MAX_JSON_DEPTH = 64
"""Deeper nesting is no document anyone writes; refusing it keeps every walk bounded."""


class TooDeep(ValueError):
    """Nested deeper than the reader allows (or than Python's parser can)."""


def parse_json(
    text: str | bytes,
    *,
    finite: bool = False,
    max_depth: int = MAX_JSON_DEPTH,
    max_magnitude: float | None = None,
) -> Any:
    """``text`` as JSON nested at most ``max_depth`` deep, without ``NaN`` or ``Infinity``;
    with ``finite``, no number too large for a float either (a config leaves that to its field's
    validation, which names the field). ``ValueError`` with the reason otherwise
    (``json.JSONDecodeError``, a ``ValueError``, for text that is not JSON at all)."""
    parse_float: Callable[[str], Any] = _finite if finite or max_magnitude is not None else float
    parse_int: Callable[[str], Any] = int
    if max_magnitude is not None:
        parse_float, parse_int = _bounded(_finite, max_magnitude, "number"), _bounded(int, max_magnitude, "integer")
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=parse_float, parse_int=parse_int)
    except RecursionError:
        raise TooDeep("nested too deeply") from None
    if _depth_over(data, max_depth):
        raise TooDeep(f"nested deeper than {max_depth} levels")
    return data


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise ValueError(f"{literal[:40]} is beyond the numbers a float holds")
    return value


def _bounded(parse: Callable[[str], float], limit: float, what: str) -> Callable[[str], float]:
    def read(literal: str) -> float:
        value = parse(literal)
        if abs(value) >= limit:
            raise ValueError(f"{what} out of range")
        return value

    return read


def _depth_over(value: Any, limit: int) -> bool:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                return True
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)
    return False
