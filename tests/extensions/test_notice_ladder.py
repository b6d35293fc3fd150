"""The notice ladder: order, one notice per request, thresholds below the abort point."""

from __future__ import annotations

import json
from pathlib import Path

from aw_action.extensions.notices import LADDER, NoticeLadder, named_rung, notice_text, rungs_for, time_rungs
from aw_action.run.time_budget import TimeBudget

FIXTURE = Path(__file__).parents[1] / "run" / "data" / "awf-steering-token-usage.jsonl"


def drain(ladder: NoticeLadder) -> list[tuple[str, int]]:
    out = []
    while (rung := ladder.take()) is not None:
        out.append(rung.key)
    return out


def full_ladder() -> NoticeLadder:
    return NoticeLadder(rungs_for("timeout", 100) + rungs_for("ai_credit", 100) + rungs_for("token", 100))


def test_awf_example_time_90_and_credits_80() -> None:
    """AWF's test case: time at 90 % and credits at 80 % -> TIME 90, TIME 80, AI CREDIT 80."""
    ladder = full_ladder()
    ladder.observe("timeout", 90)
    ladder.observe("ai_credit", 80)
    assert drain(ladder) == [("timeout", 90), ("timeout", 80), ("ai_credit", 80)]


def test_same_threshold_goes_time_then_credit_then_token() -> None:
    ladder = full_ladder()
    for type_ in ("token", "ai_credit", "timeout"):
        ladder.observe(type_, 95)  # type: ignore[arg-type]
    order = drain(ladder)
    assert order[:3] == [("timeout", 95), ("ai_credit", 95), ("token", 95)]
    assert order[3:6] == [("timeout", 90), ("ai_credit", 90), ("token", 90)]
    assert len(order) == 9


def test_take_gives_one_notice_at_a_time_and_each_only_once() -> None:
    ladder = full_ladder()
    ladder.observe("token", 96)
    assert ladder.take().key == ("token", 95)  # type: ignore[union-attr]
    ladder.observe("token", 97)  # nothing new crossed
    assert [r.key for r in ladder.pending()] == [("token", 90), ("token", 80)]
    ladder.observe("token", 99.5)
    assert ladder.take().key == ("token", 99)  # type: ignore[union-attr]
    assert drain(ladder) == [("token", 90), ("token", 80)]
    ladder.observe("token", 100)
    assert ladder.take() is None


def test_rungs_stop_below_the_abort_point_and_warning_joins() -> None:
    rungs = rungs_for("token", 90, [named_rung("token", 75, "budget_warning")])
    assert [(r.threshold, r.kind) for r in rungs] == [(75, "budget_warning"), (80, "ladder")]
    assert [r.threshold for r in rungs_for("token", 100)] == list(LADDER)
    assert [r.threshold for r in rungs_for("token", 99)] == [80, 90, 95]


def test_named_rung_replaces_ladder_rung_at_the_same_threshold() -> None:
    rungs = rungs_for("token", 100, [named_rung("token", 90, "budget_warning")])
    assert [(r.threshold, r.kind) for r in rungs] == [
        (80, "ladder"),
        (90, "budget_warning"),
        (95, "ladder"),
        (99, "ladder"),
    ]


def test_texts_in_awf_style() -> None:
    rung = rungs_for("token", 100)[0]
    assert notice_text(rung) == (
        "[AWF TOKEN WARNING] You have used 80% of your effective token budget. "
        "Begin planning to wrap up your current work."
    )
    credit = rungs_for("ai_credit", 90)[0]
    assert notice_text(credit, abort_percent=90).startswith("[AWF AI CREDIT WARNING] You have used 80% of your AI")
    assert notice_text(credit, abort_percent=90).endswith("The run is stopped at 90%.")
    time99 = rungs_for("timeout", 100)[-1]
    assert notice_text(time99) == (
        "[AWF TIME WARNING] You have used 99% of your allotted run time. You are about to time out. Submit immediately."
    )


def test_time_notices_tell_minutes_left_and_critical_asks_for_final_output() -> None:
    budget = TimeBudget.from_minutes(20, 5, 2)
    by_kind = {r.kind: r for r in time_rungs(budget)}
    warning = notice_text(by_kind["time_warning"], minutes_left=5)
    critical = notice_text(by_kind["time_critical"], minutes_left=1.5)
    assert warning.startswith("[AWF TIME WARNING] 5 minutes left") and "wrapping up" in warning
    assert "CRITICAL: 1 minute left" in critical and "final output NOW" in critical


def test_fixture_notices_fit_the_ladder() -> None:
    """AWF records carry at most one notice each, of a known type and a ladder threshold."""
    records = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
    notices = [r["steering"] for r in records if "steering" in r]
    assert notices and all(set(n) == {"type", "threshold"} for n in notices)
    assert all(n["type"] in ("timeout", "ai_credit", "token") and n["threshold"] in LADDER for n in notices)
    assert all("steering" not in r for r in records if r["purpose"] == "routing_classification")
