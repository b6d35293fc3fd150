"""The soft deadline and the placement of time notices."""

from __future__ import annotations

import pytest

from aw_action.extensions.notices import time_rungs
from aw_action.run.time_budget import TimeBudget


@pytest.mark.parametrize(
    ("minutes", "margin_s"),
    [(20, 30.0), (5, 30.0), (4, 24.0), (1, 6.0), (0.05, 0.3)],
)
def test_margin_is_the_smaller_of_30s_and_a_tenth(minutes: float, margin_s: float) -> None:
    budget = TimeBudget.from_minutes(minutes, 5, 2)
    assert budget.margin_s == pytest.approx(margin_s)
    assert budget.soft_deadline_s == pytest.approx(minutes * 60 - margin_s)


def test_default_run_places_warning_and_critical_before_the_soft_deadline() -> None:
    budget = TimeBudget.from_minutes(20, 5, 2)
    rungs = {r.kind: r for r in reversed(time_rungs(budget))}  # the first rung of each kind
    assert budget.percent(budget.soft_deadline_s - 300) == pytest.approx(rungs["time_warning"].at_percent)
    assert budget.percent(budget.soft_deadline_s - 120) == pytest.approx(rungs["time_critical"].at_percent)
    assert all(r.at_percent < budget.abort_percent for r in time_rungs(budget))
    assert 99 not in [r.threshold for r in time_rungs(budget)]  # 99 % of 20 min is past the soft deadline


def test_short_run_still_gets_both_warnings_in_order() -> None:
    budget = TimeBudget.from_minutes(1, 5, 2)
    kinds = [r.kind for r in time_rungs(budget)]
    assert kinds.index("time_warning") < kinds.index("time_critical")
    assert all(0 < r.at_percent < budget.abort_percent for r in time_rungs(budget))


def test_ladder_rungs_after_the_critical_point_keep_the_critical_text() -> None:
    budget = TimeBudget.from_minutes(20, 5, 2)
    critical = next(r for r in time_rungs(budget) if r.kind == "time_critical" and r.threshold == 87)
    later = [r for r in time_rungs(budget) if r.at_percent > critical.at_percent]
    assert later and all(r.kind == "time_critical" for r in later)


def test_minutes_left_counts_to_the_soft_deadline() -> None:
    budget = TimeBudget.from_minutes(10, 5, 2)
    assert budget.minutes_left(0) == pytest.approx(9.5)
    assert budget.minutes_left(10_000) == 0
