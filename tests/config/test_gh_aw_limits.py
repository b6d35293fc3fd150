"""The GH_AW_* limits of a compiled agent step: read once, every bad value named."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.config.gh_aw_limits import GhAwEnvError, GhAwLimits, read_limits, stricter

SMOKE_PI_ENV = {
    # The agent step of smoke-pi.lock.yml @007e683 (values as compiled; see notes gh-aw-runtime §1).
    "GITHUB_AW": "true",
    "GH_AW_PHASE": "agent",
    "GH_AW_VERSION": "v0.87.4",
    "GH_AW_TIMEOUT_MINUTES": "20",
    "GH_AW_MAX_AI_CREDITS": "1000",
    "GH_AW_MAX_TURNS": "",
}


def test_a_compiled_agent_step_reads_as_its_limits(tmp_path: Path) -> None:
    limits = read_limits(SMOKE_PI_ENV, tmp_path / "absent.txt")
    assert limits == GhAwLimits(
        in_gh_aw=True, phase="agent", version="v0.87.4", timeout_minutes=20.0, budgets={"GH_AW_MAX_AI_CREDITS": 1000.0}
    )
    assert limits.limit("GH_AW_MAX_TURNS", 0) is None, "gh-aw exports GH_AW_MAX_TURNS empty when nothing is configured"


def test_outside_gh_aw_nothing_is_set(tmp_path: Path) -> None:
    assert read_limits({}, tmp_path / "absent.txt") == GhAwLimits()


def test_all_counters(tmp_path: Path) -> None:
    env = {"GH_AW_MAX_TURNS": "12", "GH_AW_MAX_TOOL_CALLS": "+40", "GH_AW_MAX_TOOL_DENIALS": " 3 "}
    limits = read_limits(env, tmp_path / "absent.txt")
    assert (limits.limit("GH_AW_MAX_TURNS", 0), limits.limit("GH_AW_MAX_TOOL_CALLS", 0)) == (12, 40)
    assert limits.max_tool_denials == 3


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("GH_AW_TIMEOUT_MINUTES", "nan", "not a number"),
        ("GH_AW_TIMEOUT_MINUTES", "inf", "not a number"),
        ("GH_AW_TIMEOUT_MINUTES", "1e999", "not a finite number"),
        ("GH_AW_TIMEOUT_MINUTES", "0", "greater than 0"),
        ("GH_AW_TIMEOUT_MINUTES", "-5", "greater than 0"),
        ("GH_AW_TIMEOUT_MINUTES", "20m", "not a number"),
        ("GH_AW_TIMEOUT_MINUTES", "٢٠", "not a number"),  # Arabic-Indic digits: float() would take them
        ("GH_AW_MAX_TURNS", "2.5", "not a whole number"),
        ("GH_AW_MAX_TURNS", "0", "between 1 and"),
        ("GH_AW_MAX_TURNS", "-1", "not a whole number"),
        ("GH_AW_MAX_TURNS", "9007199254740992", "between 1 and"),
        ("GH_AW_MAX_TOOL_CALLS", "many", "not a whole number"),
        ("GH_AW_MAX_TOOL_DENIALS", "1e3", "not a whole number"),
        ("GH_AW_MAX_AI_CREDITS", "1K", "not a number"),
        ("GH_AW_MAX_AI_CREDITS", "0", "greater than 0"),
        ("GH_AW_MAX_AI_CREDITS", "-2", "greater than 0"),
        ("GH_AW_MAX_AI_CREDITS", "NaN", "not a number"),
    ],
)
def test_a_malformed_value_is_an_error_naming_the_variable(tmp_path: Path, name: str, value: str, message: str) -> None:
    with pytest.raises(GhAwEnvError) as info:
        read_limits({name: value}, tmp_path / "absent.txt")
    assert str(info.value).startswith(f"{name}: ") and message in str(info.value)


def test_minus_one_disables_the_credit_budget(tmp_path: Path) -> None:
    assert read_limits({"GH_AW_MAX_AI_CREDITS": "-1"}, tmp_path / "absent.txt").budgets == {}
    credits = read_limits({"GH_AW_MAX_AI_CREDITS": "12.5"}, tmp_path / "absent.txt")
    assert credits.budgets == {"GH_AW_MAX_AI_CREDITS": 12.5}


def test_timeout_counts_from_the_agent_cli_start_file(tmp_path: Path) -> None:
    start = tmp_path / "agent_cli_start_ms.txt"
    start.write_text("1700000000000")  # printf '%s' "$(date +%s%3N)": no newline
    limits = read_limits({"GH_AW_TIMEOUT_MINUTES": "20"}, start)
    assert limits.started_at_ms == 1_700_000_000_000
    now = 1_700_000_000_000 + 5 * 60_000  # five minutes went on setup before the harness started
    assert limits.deadline_ms(now) == 1_700_000_000_000 + 20 * 60_000
    assert limits.remaining_minutes(now) == pytest.approx(15.0)
    assert limits.remaining_minutes(now + 60 * 60_000) == 0.0, "past the deadline: nothing left, never negative"


def test_without_the_start_file_the_clock_starts_now(tmp_path: Path) -> None:
    limits = read_limits({"GH_AW_TIMEOUT_MINUTES": "7.5"}, tmp_path / "absent.txt")
    assert limits.started_at_ms is None and limits.remaining_minutes(123) == pytest.approx(7.5)


def test_a_start_time_in_the_future_never_lengthens_the_run(tmp_path: Path) -> None:
    start = tmp_path / "start.txt"
    start.write_text("2000000000000\n")
    limits = read_limits({"GH_AW_TIMEOUT_MINUTES": "10"}, start)
    assert limits.remaining_minutes(1_000_000_000_000) == pytest.approx(10.0)


@pytest.mark.parametrize("content", ["", "soon", "1.7e12", "-1", "17000000000000000000"])
def test_a_malformed_start_file_is_an_error_naming_the_file(tmp_path: Path, content: str) -> None:
    start = tmp_path / "agent_cli_start_ms.txt"
    start.write_text(content)
    with pytest.raises(GhAwEnvError, match=r"agent_cli_start_ms\.txt: expected epoch milliseconds"):
        read_limits({"GH_AW_TIMEOUT_MINUTES": "20"}, start)


def test_the_start_file_matters_only_with_a_timeout(tmp_path: Path) -> None:
    start = tmp_path / "agent_cli_start_ms.txt"
    start.write_text("garbage")
    assert read_limits({}, start).started_at_ms is None


def test_an_unreadable_start_file_is_an_error(tmp_path: Path) -> None:
    start = tmp_path / "agent_cli_start_ms.txt"
    start.mkdir()
    with pytest.raises(GhAwEnvError, match=r"agent_cli_start_ms\.txt: unreadable"):
        read_limits({"GH_AW_TIMEOUT_MINUTES": "20"}, start)


def test_the_stricter_limit_wins() -> None:
    assert stricter(30, 20) == 20
    assert stricter(None, 20) == 20
    assert stricter(5.5, None, 9) == 5.5
    assert stricter(None, None) is None
