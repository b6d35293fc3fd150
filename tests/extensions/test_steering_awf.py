"""AWF's token steering on: the harness sends no token or credit notice of its own (the api-proxy
sends them), keeps its time notices, and its budget gates still stop the run.

The notice tests use a credit budget on the scripted model (no catalog price: only the critical
point gates it, so one answer can jump to 81 %); a token budget that one answer fills to 81 %
cannot pay for the next request's worst case, and the exact gate stops the run instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.extensions.rig import ManualClock, echo_tool, make_priced_rig, make_rig
from tests.extensions.test_steering import TOOL_TURN, advancing_tool, labels, steer_texts, with_clock

AWF_STEERS = {"GITHUB_AW": "true", "AWF_ENABLE_TOKEN_STEERING": "true"}
BUDGETS = {"harness": {"budget": {"max-ai-credits": 10}}, "timeout-minutes": 20}


def script() -> list[dict[str, Any]]:
    small = {**TOOL_TURN, "cost_usd": 0.0001}
    return [{**TOOL_TURN, "cost_usd": 0.081}, small, small, small, {"text": "done", "cost_usd": 0.0001}]


@pytest.mark.parametrize("awf_steers", [False, True])
async def test_budget_notices_are_left_to_awf_and_time_notices_stay(tmp_path: Path, awf_steers: bool) -> None:
    clock = ManualClock()
    env = AWF_STEERS if awf_steers else {"GITHUB_AW": "true"}
    rig = await make_priced_rig(
        tmp_path, script(), with_clock(clock), config=BUDGETS, tools=[advancing_tool(clock, [1100.0, 0, 0, 0])], env=env
    )
    assert await rig.run() == "completed"
    types = {label[0] for label in labels(rig) if label}
    texts = " ".join(steer_texts(rig))
    assert "timeout" in types and "[AWF TIME WARNING]" in texts, "time steering is the harness's in both cases"
    if awf_steers:
        assert types == {"timeout"}
        assert "[AWF TOKEN WARNING]" not in texts and "[AWF AI CREDIT WARNING]" not in texts
        [delegated] = rig.named("steering_delegated")
        assert delegated["types"] == ["token", "ai_credit"] and delegated["to"] == "awf_api_proxy"
        assert delegated["source"] == "AWF_ENABLE_TOKEN_STEERING"
    else:
        assert "ai_credit" in types and "[AWF AI CREDIT WARNING]" in texts, (
            "the control: without AWF the harness steers"
        )
        assert rig.named("steering_delegated") == []


async def test_the_budget_gate_still_stops_the_run_when_awf_steers(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-effective-tokens": 10000}}, "timeout-minutes": 60}
    turns = [{**TOOL_TURN, "usage": {"input": 5000}}] * 3 + [{"text": "done"}]
    rig = await make_rig(tmp_path, turns, with_clock(ManualClock()), config=config, tools=[echo_tool()], env=AWF_STEERS)
    assert await rig.run() == "budget_exceeded"
    assert [r["budget"] for r in rig.named("budget_exceeded")] == ["effective_tokens"]
    assert steer_texts(rig) == []


async def test_outside_gh_aw_mode_the_flag_changes_nothing(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-ai-credits": 10}}, "timeout-minutes": 60}
    turns = [{**TOOL_TURN, "cost_usd": 0.081}, {"text": "done", "cost_usd": 0.0001}]
    env = {"AWF_ENABLE_TOKEN_STEERING": "true"}
    rig = await make_priced_rig(tmp_path, turns, with_clock(ManualClock()), config=config, tools=[echo_tool()], env=env)
    assert await rig.run() == "completed"
    assert labels(rig) == [None, ("ai_credit", 80)]
