"""Steering notices on model requests, and the soft deadline, with a hand-driven clock."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from aw_action.ai.types import UserMessage
from aw_action.extensions import cost_tracker, steering
from aw_action.extensions.api import ExtensionAPI
from aw_action.run import time_budget as deadline
from tests.extensions.rig import ManualClock, Rig, echo_tool, make_priced_rig, make_rig

TOOL_TURN: dict[str, Any] = {"tool_calls": [{"name": "echo", "arguments": {}}]}


def with_clock(clock: ManualClock) -> list[tuple[str, Any]]:
    return [("cost-tracker", cost_tracker.setup), ("steering", lambda api: steering.install(api, clock))]


def labels(rig: Rig) -> list[tuple[str, int] | None]:
    return [
        None if r.steering is None else (r.steering["type"], r.steering["threshold"]) for r in rig.state.ledger.requests
    ]


def steer_texts(rig: Rig) -> list[str]:
    return [m.text for m in rig.session.messages if isinstance(m, UserMessage) and m.source == "steer"]


async def test_budget_notices_go_out_highest_first_one_per_request(tmp_path: Path) -> None:
    """A credit budget on the scripted model (no catalog price: only the critical point gates it, so
    one answer can jump to 81 %); the ladder is the same for every budget type."""
    config = {"harness": {"budget": {"max-ai-credits": 10}}, "timeout-minutes": 60}
    script = [
        {**TOOL_TURN, "cost_usd": 0.081},  # 81 %: crosses the 75 % warning and the 80 % rung
        {**TOOL_TURN, "cost_usd": 0.001},
        {**TOOL_TURN, "cost_usd": 0.001},
        {"text": "done", "cost_usd": 0.001},
    ]
    rig = await make_priced_rig(tmp_path, script, with_clock(ManualClock()), config=config, tools=[echo_tool()])
    assert await rig.run() == "completed"
    assert labels(rig) == [None, ("ai_credit", 80), ("ai_credit", 75), None]
    texts = steer_texts(rig)
    assert texts[0].startswith("[AWF AI CREDIT WARNING] You have used 80% of your AI credit budget.")
    assert texts[0].endswith("The run is stopped at 90%.")
    assert "75%" in texts[1] and "Be concise" in texts[1]
    records = rig.named("steering")
    assert [(r["type"], r["threshold"], r["request_id"]) for r in records] == [
        ("ai_credit", 80, "faux-2"),
        ("ai_credit", 75, "faux-3"),
    ]
    assert [(n["request_id"], n["turn"]) for n in rig.state.journal.steering_notices] == [("faux-2", 2), ("faux-3", 3)]
    assert [n["text"] for n in rig.state.journal.steering_notices] == texts


async def test_no_notice_after_the_final_answer(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-effective-tokens": 10000}}, "timeout-minutes": 60}
    script = [{"text": "done", "usage": {"input": 8500}}]
    rig = await make_rig(tmp_path, script, with_clock(ManualClock()), config=config)
    assert await rig.run() == "completed"
    assert rig.provider.calls == 1 and steer_texts(rig) == [] and rig.state.journal.steering_notices == []


def advancing_tool(clock: ManualClock, steps: list[float]) -> Any:
    def text(args: dict[str, Any]) -> str:
        clock.advance(steps.pop(0))
        return "ok"

    return echo_tool(text=text)


async def test_time_notices_follow_the_clock(tmp_path: Path) -> None:
    clock = ManualClock()
    # 20 minutes: warning at 72.5 % (5 min before the soft deadline), 80 %, critical at 87.5 %, 90 %, 95 %
    steps = [900.0, 200.0, 0.0, 0.0, 0.0]
    script = [TOOL_TURN] * 5 + [{"text": "done"}]
    rig = await make_rig(
        tmp_path, script, with_clock(clock), config={"timeout-minutes": 20}, tools=[advancing_tool(clock, steps)]
    )
    assert await rig.run() == "completed"
    assert labels(rig) == [None, ("timeout", 72), ("timeout", 90), ("timeout", 87), ("timeout", 80), None]
    kinds = [n["kind"] for n in rig.state.journal.steering_notices]
    assert kinds == ["time_warning", "time_critical", "time_critical", "ladder"]
    texts = steer_texts(rig)
    assert (
        texts[0] == "[AWF TIME WARNING] 4 minutes left before this run is stopped. Begin wrapping up your current work."
    )
    assert "CRITICAL" in texts[1] and "final output NOW" in texts[1]


async def test_time_and_budget_notices_share_one_per_request(tmp_path: Path) -> None:
    clock = ManualClock()
    config = {"harness": {"budget": {"max-ai-credits": 10}}, "timeout-minutes": 20}
    small = {**TOOL_TURN, "cost_usd": 0.0001}
    script = [{**TOOL_TURN, "cost_usd": 0.081}, small, small, small, {"text": "done", "cost_usd": 0.0001}]
    rig = await make_priced_rig(
        tmp_path, script, with_clock(clock), config=config, tools=[advancing_tool(clock, [1100.0, 0, 0, 0])]
    )
    assert await rig.run() == "completed"
    # time at 91.7 % (critical 87.5 and 90 rungs, 80, warning 72.5) and credits at 81 % (80, 75):
    # highest first, time before credit at the same threshold.
    assert labels(rig) == [None, ("timeout", 90), ("timeout", 87), ("timeout", 80), ("ai_credit", 80)]
    assert all(text.count("[AWF") == 1 for text in steer_texts(rig))


async def test_soft_deadline_aborts_an_in_flight_request(tmp_path: Path) -> None:
    clock = ManualClock()
    script = [{"text": "slow", "delay_s": 30}, {"text": "never"}]
    rig = await make_rig(tmp_path, script, with_clock(clock), config={"timeout-minutes": 1})
    run = asyncio.create_task(rig.run())
    while rig.provider.calls == 0:
        await asyncio.sleep(0.001)
    clock.advance(53.9)
    await asyncio.sleep(0.01)
    assert not run.done()  # the soft deadline is 54 s (margin 6 s = 10 % of 1 min)
    clock.advance(0.2)
    assert await asyncio.wait_for(run, 5) == "timeout"
    [record] = rig.named("timeout")
    assert record["soft_deadline_s"] == 54.0 and record["margin_s"] == 6.0
    assert rig.provider.calls == 1 and rig.state.ledger.turns == []


async def test_deadline_timer_stops_with_the_session(tmp_path: Path) -> None:
    clock = ManualClock()
    rig = await make_rig(tmp_path, [{"text": "done"}], with_clock(clock), config={"timeout-minutes": 1})
    assert await rig.run() == "completed"
    assert asyncio.all_tasks() == {asyncio.current_task()}  # no timer left running after the session
    clock.advance(3600)
    await asyncio.sleep(0.01)
    assert rig.session.abort_reason is None and rig.named("timeout") == []


async def test_real_setup_counts_from_the_process_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's step timeout started before this process did: the seconds the CLI spent
    starting up (interpreter, imports, config) count against ``timeout-minutes`` too."""
    monkeypatch.setattr(deadline, "process_age_s", lambda: 3.0)  # started 3 s before the run state
    config = {"timeout-minutes": 0.1}  # 6 s: soft deadline 5.4 s, time warning at 2.7 s (45 %)
    setups = [("cost-tracker", cost_tracker.setup), ("steering", steering.setup)]
    rig = await make_rig(tmp_path, [TOOL_TURN, {"text": "done"}], setups, config=config, tools=[echo_tool()])
    assert await rig.run() == "completed"
    assert rig.state.record.limits["minutes"] == 0.1
    assert labels(rig) == [None, ("timeout", 45)]


async def test_a_long_lived_host_counts_from_the_run_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deadline, "process_age_s", lambda: 3600.0)  # e.g. a test runner or a service
    setups = [("cost-tracker", cost_tracker.setup), ("steering", steering.setup)]
    rig = await make_rig(
        tmp_path, [TOOL_TURN, {"text": "done"}], setups, config={"timeout-minutes": 0.1}, tools=[echo_tool()]
    )
    assert await rig.run() == "completed"
    assert labels(rig) == [None, None]


def test_process_age_of_a_fresh_interpreter_is_small() -> None:
    code = "from aw_action.run.time_budget import process_age_s; print(process_age_s())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    age = float(out.stdout)
    assert 0 < age < 30


async def test_a_notice_queued_behind_another_steer_is_labelled_on_the_request_that_carries_it(
    tmp_path: Path,
) -> None:
    """Steering drains one message per request: when an extension's own steer goes first, the
    notice waits, no second notice is queued behind it, and the label follows the notice."""
    config = {"harness": {"budget": {"max-ai-credits": 10}}, "timeout-minutes": 60}
    small = {**TOOL_TURN, "cost_usd": 0.0001}
    script = [{**TOOL_TURN, "cost_usd": 0.081}, small, small, small, {"text": "done", "cost_usd": 0.0001}]
    rig = await make_priced_rig(tmp_path, script, with_clock(ManualClock()), config=config, tools=[echo_tool()])
    notes = iter(["note from the user's extension"])
    ExtensionAPI("./notes.py", False, rig.services).on(
        "tool_execution_end", lambda event, ctx: ctx.steer(next(notes, "")) if rig.provider.calls == 1 else None
    )
    assert await rig.run() == "completed"
    sent = [
        [m.text for m in r.messages if isinstance(m, UserMessage) and m.source == "steer"]
        for r in rig.provider.requests
    ]
    assert len(sent[1]) == 1 and sent[1][0] == "note from the user's extension"
    assert labels(rig) == [None, None, ("ai_credit", 80), ("ai_credit", 75), None]
    assert [(n["threshold"], n["request_id"]) for n in rig.state.journal.steering_notices] == [
        (80, "faux-3"),
        (75, "faux-4"),
    ]
    assert len(rig.named("steering")) == 2


async def test_the_budget_final_notice_goes_out_on_a_request_before_the_budget_stops_the_run(tmp_path: Path) -> None:
    """Each turn's tool output grows the context by about 1000 tokens; the forecast sees that the
    request after the next will not fit, so the next request carries the final notice, and its
    answer is kept: the stop comes on a later request."""
    config = {"harness": {"budget": {"max-effective-tokens": 30000}}, "timeout-minutes": 60}
    script = [TOOL_TURN] * 12 + [{"text": "done"}]
    rig = await make_rig(tmp_path, script, with_clock(ManualClock()), config=config, tools=[echo_tool(text="y" * 4000)])
    assert await rig.run() == "budget_exceeded"
    assert rig.state.ledger.effective_tokens <= 30000
    finals = [n for n in rig.state.journal.steering_notices if n["kind"] == "budget_final"]
    assert len(finals) == 1 and finals[0]["type"] == "token"
    assert "Finalize and submit your work in your next response." in finals[0]["text"]
    carried = [i for i, label in enumerate(labels(rig)) if label is not None and label[0] == "token"]
    assert carried and carried[-1] == len(rig.state.ledger.requests) - 1  # the last request sent carried it
    stop = rig.state.journal.budget_exceeded
    assert stop is not None and stop["trigger"] in ("next_request", "critical_percent")
    assert rig.state.ledger.turns[-1].turn == len(rig.state.ledger.requests)  # its answer was kept
