"""Budget gates of the cost tracker, in process over the scripted provider."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    AssistantStreamEvent,
    Model,
    ProviderHooks,
    ProviderRequest,
    StreamDone,
)
from aw_action.exits import InvocationError
from aw_action.extensions import cost_tracker
from tests.extensions.rig import echo_tool, make_rig

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


async def test_budget_abort_discards_the_in_flight_turn_and_sends_no_further_request(tmp_path: Path) -> None:
    tool, runs = counting_tool()
    script = [tool_turn({"input": 100, "output": 10}), tool_turn({"input": 800}), {"text": "never"}]
    config = {"harness": {"budget": {"max-effective-tokens": 1000}}}
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[tool])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 2 and len(runs) == 1  # the second answer's tool never ran
    assert len(rig.state.ledger.turns) == 1 and len(rig.state.ledger.requests) == 2
    assert rig.state.ledger.effective_tokens == pytest.approx(140 + 800)
    [record] = rig.named("budget_exceeded")
    assert record == rig.state.journal.budget_exceeded
    assert record["budget"] == "effective_tokens" and record["reason"] == "hard_limit"
    assert record["forced_termination"] is True and record["used"] == 940 and record["limit"] == 1000
    answers = [m for m in rig.session.messages if isinstance(m, AssistantMessage)]
    assert len(answers) == 1  # completed turn kept, in-flight answer not persisted


async def test_request_refused_when_even_the_cheapest_next_one_would_cross_the_limit(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-effective-tokens": 1000}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 950}), {"text": "done"}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool()])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 1
    assert (
        rig.state.journal.budget_exceeded is not None and rig.state.journal.budget_exceeded["trigger"] == "next_request"
    )


async def test_request_allowed_when_the_cheapest_next_one_fits(tmp_path: Path) -> None:
    config = {"harness": {"budget": {"max-effective-tokens": 1100}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 950}), {"text": "done", "usage": {"input": 10}}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool()])
    assert await rig.run() == "completed"
    assert rig.provider.calls == 2 and rig.state.journal.budget_exceeded is None


async def test_request_refused_when_the_new_tool_output_alone_would_cross_the_limit(tmp_path: Path) -> None:
    """The previous prompt read back from the cache fits (950 + 95 < 1100), but the tool output it
    has to carry as new input (about 250 tokens) does not: the request is never sent."""
    config = {"harness": {"budget": {"max-effective-tokens": 1100}, "steering": {"budget-critical-percent": 100}}}
    script = [tool_turn({"input": 950}), {"text": "never", "usage": {"input": 10}}]
    rig = await make_rig(tmp_path, script, TRACKER, config=config, tools=[echo_tool(text="x" * 1000)])
    assert await rig.run() == "budget_exceeded"
    assert rig.provider.calls == 1
    assert (
        rig.state.journal.budget_exceeded is not None and rig.state.journal.budget_exceeded["trigger"] == "next_request"
    )


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


class PricedFaux(FauxProvider):
    """The scripted provider with a cost per answer (``cost_usd`` in the turn)."""

    async def stream(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal
    ) -> AsyncIterator[AssistantStreamEvent]:
        cost = self._turns[0].get("cost_usd", 0.0) if self._turns else 0.0
        async for event in super().stream(request, hooks, abort):
            if isinstance(event, StreamDone):
                event.message.cost_usd = cost
            yield event


async def priced_rig(tmp_path: Path, script: list[dict[str, Any]], **kw: Any) -> Any:
    rig = await make_rig(tmp_path, script, TRACKER, tools=[echo_tool()], **kw)
    priced = PricedFaux(script)
    rig.provider = priced
    rig.session._resolve_provider = lambda m: priced  # type: ignore[method-assign]
    return rig


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
