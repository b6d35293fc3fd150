"""The one strict JSON reader."""

from __future__ import annotations

import pytest

from aw_action.environment.strict_json import MAX_JSON_DEPTH, parse_json


@pytest.mark.parametrize("text", ["NaN", "[Infinity]", '{"a": -Infinity}'])
def test_non_numbers_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a number JSON allows"):
        parse_json(text)


def test_nesting_is_bounded() -> None:
    assert parse_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    with pytest.raises(ValueError, match="nested"):
        parse_json("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))


def test_finite_refuses_floats_beyond_a_double() -> None:
    assert parse_json("1e400") == float("inf")
    with pytest.raises(ValueError, match="beyond the numbers a float holds"):
        parse_json("1e400", finite=True)
