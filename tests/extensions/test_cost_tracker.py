"""Budget gates of the cost tracker, in process over the scripted provider."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aw_action.ai.types import (
    AssistantMessage,
    Model,
)
from aw_action.exits import InvocationError
from aw_action.extensions import cost_tracker
from tests.extensions.rig import echo_tool, make_priced_rig, make_rig

TRACKER = [("cost-tracker", cost_tracker.setup)]


def tool_turn(usage: dict[str, int] | None = None, name: str = "echo") -> dict[str, Any]:
    turn: dict[str, Any] = {"tool_calls": [{"name": name, "arguments": {}}]}
    if usage is not None:
        turn["usage"] = usage
    return turn


def counting_tool() -> tuple[Any, list[int]]:
    calls: list[int] = []

    def text(args: dict[str, Any]) -> str:
        calls.append(1)
        return "ok"

    return echo_tool(text=text), calls


async def test_the_turn_that_crosses_the_critical_point_completes_and_no_request_follows(tmp_path: Path) -> None:
    """The answer that takes usage past ``budget-critical-percent`` is kept and its tools run
    (its cost is already paid and within the limit); no request starts after it."""
    tool, runs = counting_tool()
    script = [tool_turn({"input": 1000, "output": 100}), tool_turn({"input": 7700}), {"text": "never"}]
    config = {"harness": {"budget": {"max-effective-tokens": 10000}}}
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[tool])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 2 and len(runs) == 2
    assert len(rig.state.ledger.turns) == 2 and len(rig.state.ledger.requests) == 2
    assert rig.state.ledger.effective_tokens == pytest.approx(1400 + 7700)
    [record] = rig.named("budget_exceeded")
    assert record == rig.state.journal.budget_exceeded
    assert record["budget"] == "effective_tokens" and record["reason"] == "hard_limit"
    assert record["trigger"] == "critical_percent"
    assert record["forced_termination"] is True and record["used"] == 9100 and record["limit"] == 10000


async def test_request_refused_when_a_minimal_answer_would_cross_the_limit(tmp_path: Path) -> None:
    """After 8000 of 10000, the next request carries the 8000-token prompt back (at full price:
    nothing is assumed to come from the cache) plus a 256-token answer at 4 each: 9000+ > 2000."""
    config = {"harness": {"budget": {"max-effective-tokens": 10000}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 8000}), {"text": "done"}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool()])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 1
    record = rig.state.journal.budget_exceeded
    assert record is not None and record["trigger"] == "next_request" and record["used"] == 8000
    assert record["next_request"] > 2000 and record["input_tokens"] >= 8000


async def test_a_request_that_fits_is_sent_with_max_tokens_lowered_to_what_is_left(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-effective-tokens": 20000}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 8000}), {"text": "done", "usage": {"input": 10}}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool()])
    assert await rig.run() == "completed"
    assert rig.provider.calls == 2 and rig.state.journal.budget_exceeded is None
    first, second = (r.options.max_tokens for r in rig.provider.requests)
    assert first is not None and second is not None
    [cap] = [c for c in rig.named("budget_cap") if c["max_tokens"] == second]
    # what is left (12000) pays for the prompt at 1 a token and the answer at 4 a token
    assert cap["budget"] == "effective_tokens" and 8000 + (cap["input_tokens"] - 8000) + 4 * second <= 12000
    assert 12000 - (cap["input_tokens"] + 4 * second) < 4  # and not a token less than that
    assert cap["input_tokens"] > 8000 and first <= 16_384


async def test_request_refused_when_the_new_tool_output_alone_would_cross_the_limit(tmp_path: Path) -> None:
    """Without the tool's output (about 250 tokens) the next request would fit; with it, it does not."""
    config = {"harness": {"budget": {"max-effective-tokens": 17100}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 8000}), {"text": "never", "usage": {"input": 10}}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool(text="x" * 1000)])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 1
    record = rig.state.journal.budget_exceeded
    assert record is not None and record["trigger"] == "next_request"
    assert 8000 + 250 <= record["input_tokens"] < 8000 + 250 + 40


async def test_an_answer_cut_by_the_budget_cap_stops_the_run_and_is_discarded(tmp_path: Path) -> None:
    """The scripted model wants 3000 output tokens; the budget pays for fewer, so the answer is cut
    (``length``): its tool call is lost, nothing runs, and the run stops at once."""
    tool, runs = counting_tool()
    config = {"harness": {"budget": {"max-effective-tokens": 10000}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 100, "output": 3000}), {"text": "never"}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[tool])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 1 and runs == []
    [record] = rig.named("budget_exceeded")
    assert record["trigger"] == "answer_cut" and record["max_tokens"] < 3000
    assert rig.state.ledger.effective_tokens <= 10000
    assert not [m for m in rig.session.messages if isinstance(m, AssistantMessage)]


async def test_max_turns_stops_before_the_next_turn(tmp_path: Path) -> None:
    tool, runs = counting_tool()
    script = [tool_turn(), tool_turn(), tool_turn(), {"text": "done"}]
    rig = await make_rig(tmp_path, script, TRACKER, config={"harness": {"budget": {"max-turns": 2}}}, tools=[tool])
    assert await rig.run() == "max_turns"
    assert rig.provider.calls == 2 and len(runs) == 2
    [record] = rig.named("budget_exceeded")
    assert record["budget"] == "turns" and record["used"] == 2 and record["limit"] == 2


async def test_max_turns_lets_a_run_that_fits_complete(tmp_path: Path) -> None:
    script = [tool_turn(), {"text": "done"}]
    rig = await make_rig(
        tmp_path, script, TRACKER, config={"harness": {"budget": {"max-turns": 2}}}, tools=[echo_tool()]
    )
    assert await rig.run() == "completed"
    assert rig.named("budget_exceeded") == []


async def priced_rig(tmp_path: Path, script: list[dict[str, Any]], **kw: Any) -> Any:
    return await make_priced_rig(tmp_path, script, TRACKER, tools=[echo_tool()], **kw)


async def test_ai_credit_budget_from_env_aborts_at_the_critical_point(tmp_path: Path) -> None:
    script = [{**tool_turn(), "cost_usd": 0.05}, {**tool_turn(), "cost_usd": 0.045}, {"text": "never"}]
    rig = await priced_rig(tmp_path, script, env={"GH_AW_MAX_AI_CREDITS": "10"})
    assert rig.state.record.limits["ai_credits"] == 10
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 2
    [record] = rig.named("budget_exceeded")
    assert record["budget"] == "ai_credits" and record["used"] == pytest.approx(9.5) and record["limit"] == 10


async def test_configured_ai_credit_budget_wins_over_env(tmp_path: Path) -> None:
    script = [{**tool_turn(), "cost_usd": 0.05}, {**tool_turn(), "cost_usd": 0.045}, {"text": "done"}]
    config = {"harness": {"budget": {"max-ai-credits": 100}}}
    rig = await priced_rig(tmp_path, script, env={"GH_AW_MAX_AI_CREDITS": "10"}, config=config)
    assert await rig.run() == "completed"
    assert rig.state.record.limits["ai_credits"] == 100


async def test_unknown_price_cannot_enforce_credits_and_marks_the_run_degraded(tmp_path: Path) -> None:
    script = [{**tool_turn(), "cost_usd": None}, {"text": "done"}]
    rig = await priced_rig(tmp_path, script, config={"harness": {"budget": {"max-ai-credits": 1}}})
    assert await rig.run() == "completed"
    assert rig.state.ledger.cost_usd is None
    assert [d.subsystem for d in rig.state.journal.degraded] == ["budget"]
    assert any("cannot be enforced" in w["message"] for w in rig.named("warning"))


async def test_a_malformed_credit_budget_in_the_env_is_an_invocation_error(tmp_path: Path) -> None:
    """A budget that cannot be read must not silently become no budget (issue 10)."""
    for raw in ("lots", "inf", "1e400", "-1", "0"):
        with pytest.raises(InvocationError, match=r"^GH_AW_MAX_AI_CREDITS: expected a positive"):
            await make_rig(tmp_path, [{"text": "done"}], TRACKER, env={"GH_AW_MAX_AI_CREDITS": raw})


async def test_malformed_multiplier_overrides_are_ignored_with_a_warning(tmp_path: Path) -> None:
    rig = await make_rig(tmp_path, [{"text": "done"}], TRACKER, env={"GH_AW_MODEL_MULTIPLIERS": "{bad"})
    assert len(rig.state.journal.warnings) == 1


async def test_effective_tokens_use_the_model_multiplier(tmp_path: Path) -> None:
    model = Model(id="claude-sonnet-4-6", provider="faux", api="faux")
    script = [{"text": "done", "usage": {"input": 100, "output": 10, "cache_read": 1000}}]
    rig = await make_rig(tmp_path, script, TRACKER, model=model)
    assert await rig.run() == "completed"
    assert rig.state.ledger.effective_tokens == pytest.approx(9.0 * (100 + 40 + 100))
    assert rig.state.ledger.requests[0].effective_tokens == pytest.approx(rig.state.ledger.effective_tokens)


async def test_limits_are_published_and_enforced_from_a_private_copy(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-effective-tokens": 1000, "max-turns": 5}}}
    script = [tool_turn({"input": 950}), {"text": "never"}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool()])
    assert rig.state.record.limits == {"effective_tokens": 1000, "turns": 5, "minutes": 20}
    with pytest.raises(TypeError):
        rig.state.record.limits["effective_tokens"] = 10**9  # type: ignore[index]  # someone loosens it
    rig.state.record.publish_limits({"effective_tokens": 10**9})  # even re-publishing cannot loosen the gate
    assert await rig.run() == "budget_exceeded"


async def test_a_request_that_used_no_tokens_costs_nothing_even_without_a_price(tmp_path: Path) -> None:
    """A failed or aborted request that reported no usage must not make the run's cost unknown
    (and so its AI-credit budget unenforceable)."""
    script = [{"error": {"message": "connection reset", "kind": "transient"}}]
    rig = await priced_rig(tmp_path, script, config={"harness": {"budget": {"max-ai-credits": 1}}})
    assert await rig.run() == "error"
    assert rig.state.ledger.requests[0].cost_usd == 0.0
    assert rig.state.ledger.cost_usd == 0.0 and rig.state.ledger.ai_credits == 0.0
    assert rig.state.journal.degraded == [] and rig.named("warning") == []
