"""The tuning table's one reader: defaults, bounds, and the two policies for a bad value."""

from __future__ import annotations

import pytest

from aw_action.environment import tuning
from aw_action.environment.tuning import TUNING, Tunable, TuningError
from aw_action.exits import InvocationError


def test_every_row_is_an_aw_variable_named_once() -> None:
    names = [row.name for row in TUNING]
    assert len(names) == len(set(names))
    assert all(name.startswith("AW_") for name in names)
    assert all(row.doc for row in TUNING)


@pytest.mark.parametrize(
    "raw",
    # the last four were read as numbers: past a day, an underscore, Arabic-Indic and full-width digits (review)
    ["inf", "-inf", "nan", "Infinity", "1e999", "soon", "0", "-1", "86401", "1_0", "\u0661\u0662", "\uff11"],
)
def test_an_error_row_refuses_what_is_no_positive_finite_number_naming_the_variable(raw: str) -> None:
    with pytest.raises(TuningError) as caught:
        tuning.PROVIDER_TIMEOUT_S.number({"AW_PROVIDER_TIMEOUT_S": raw}, 300.0)
    assert isinstance(caught.value, InvocationError) and caught.value.exit_code == 2
    expected = "a positive number of seconds, at most a day (86400)"
    assert str(caught.value) == f"AW_PROVIDER_TIMEOUT_S: expected {expected}, got {raw!r}"
    assert caught.value.setting is not None and caught.value.setting.name == "AW_PROVIDER_TIMEOUT_S"


def test_unset_or_blank_is_the_default_and_a_good_value_is_read() -> None:
    row = tuning.PROVIDER_TIMEOUT_S
    assert row.number({}, 300.0) == 300.0
    assert row.number({"AW_PROVIDER_TIMEOUT_S": "  "}, 300.0) == 300.0
    assert row.number({"AW_PROVIDER_TIMEOUT_S": " 12.5 "}, 300.0) == 12.5


def test_a_warning_row_falls_back_to_its_default_and_says_so() -> None:
    said: list[str] = []
    row = tuning.GITHUB_WRITE_INTERVAL_MS
    assert row.number({"AW_GITHUB_WRITE_INTERVAL_MS": "inf"}, warn=said.append) == 1000.0
    assert row.number({"AW_GITHUB_WRITE_INTERVAL_MS": "0"}) == 0.0
    assert said == [
        "AW_GITHUB_WRITE_INTERVAL_MS: expected a number of milliseconds, at least 0, at most a day (86400000), "
        "got 'inf'; using the default"
    ]


def test_a_whole_row_refuses_fractions() -> None:
    row = Tunable("AW_X", "whole", None, "x", least=1)
    assert row.number({"AW_X": "3"}) == 3.0
    with pytest.raises(TuningError, match=r"^AW_X: expected a whole number, got '2.5'$"):
        row.number({"AW_X": "2.5"})


def test_text_rows_strip_and_default() -> None:
    assert tuning.OUTPUT_DIR.text({}) == "/tmp/gh-aw"
    assert tuning.OUTPUT_DIR.text({"AW_OUTPUT_DIR": " /out "}) == "/out"
    assert tuning.REFLECT_URL.text({"AW_REFLECT_URL": ""}) is None


def test_every_number_row_has_an_upper_bound_and_a_huge_value_is_refused() -> None:
    """``AW_GITHUB_WRITE_INTERVAL_MS=1e308`` was read, and the first GitHub write of the apply job
    died in the sleep meant to pace it (``OverflowError``); ``AW_RETRY_MAX_ATTEMPTS=1e20`` too."""
    for row in TUNING:
        if row.kind != "text":
            assert not row.fits(1e308), row.name
    said: list[str] = []
    assert tuning.GITHUB_WRITE_INTERVAL_MS.number({"AW_GITHUB_WRITE_INTERVAL_MS": "1e308"}, warn=said.append) == 1000.0
    assert said and said[0].startswith("AW_GITHUB_WRITE_INTERVAL_MS: expected")
    with pytest.raises(TuningError, match="AW_RETRY_MAX_ATTEMPTS: expected a whole number of attempts, 1 to 100"):
        tuning.RETRY_MAX_ATTEMPTS.number({"AW_RETRY_MAX_ATTEMPTS": "1e20"})
    assert tuning.RETRY_MAX_ATTEMPTS.number({"AW_RETRY_MAX_ATTEMPTS": "1e2"}) == 100.0
