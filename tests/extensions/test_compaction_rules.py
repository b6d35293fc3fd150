"""Compaction cut points: never between a tool call and its result; head and tail kept."""

from __future__ import annotations

import random

from aw_action.agent.compaction import (
    SUMMARY_PREFIX,
    context_tokens,
    is_compaction_message,
    messages_tokens,
    plan_compaction,
    sliding_window,
    summarized,
    summary_request_text,
)
from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, Usage, UserMessage


def random_history(rng: random.Random, turns: int) -> list[AnyMessage]:
    history: list[AnyMessage] = [UserMessage.of("task " * rng.randint(1, 50))]
    for t in range(turns):
        calls = [
            ToolCall(id=f"c{t}_{i}", name="bash", arguments={"command": "x" * rng.randint(0, 200)})
            for i in range(rng.randint(0, 3))
        ]
        history.append(
            AssistantMessage(content=[TextContent(text="t" * rng.randint(0, 300)), *calls], stop_reason="toolUse")
        )
        history += [
            ToolResultMessage(
                tool_call_id=c.id, tool_name="bash", content=[TextContent(text="r" * rng.randint(0, 2000))]
            )
            for c in calls
        ]
        if rng.random() < 0.2:
            history.append(UserMessage.of("steer", source="steer"))
    return history


def pairs_intact(messages: list[AnyMessage]) -> bool:
    """Every result directly follows its call's answer (possibly after sibling results)."""
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, AssistantMessage):
            open_calls = {c.id for c in m.tool_calls}
        elif isinstance(m, ToolResultMessage):
            if m.tool_call_id not in open_calls:
                return False
        else:
            open_calls = set()
    return True


def calls_answered(messages: list[AnyMessage]) -> bool:
    called = {c.id for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
    return called == answered


def test_compaction_never_separates_a_tool_call_from_its_result() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        history = random_history(rng, rng.randint(1, 12))
        plan = plan_compaction(history, keep_tokens=rng.randint(1, 3000))
        if plan is None:
            continue
        checked += 1
        for new in (sliding_window(history, plan), summarized(history, plan, "S")):
            assert pairs_intact(new) and calls_answered(new)
            assert new[0] == history[0]  # the task prompt stays
            assert new[plan.head + 1 :] == history[plan.cut :]  # the tail stays verbatim
    assert checked > 100


def test_tail_respects_the_keep_budget_but_always_keeps_the_last_unit() -> None:
    big = "x" * 4000  # 1000 tokens
    history: list[AnyMessage] = [UserMessage.of("task")]
    for i in range(4):
        history += [
            AssistantMessage(content=[ToolCall(id=f"c{i}", name="bash")], stop_reason="toolUse"),
            ToolResultMessage(tool_call_id=f"c{i}", tool_name="bash", content=[TextContent(text=big)]),
        ]
    plan = plan_compaction(history, keep_tokens=2100)
    assert plan is not None and (plan.head, plan.cut) == (1, 5)  # last two units kept
    tiny = plan_compaction(history, keep_tokens=1)
    assert tiny is not None and tiny.cut == 7  # the last unit even though it is over budget


def test_nothing_to_drop_gives_no_plan() -> None:
    history: list[AnyMessage] = [UserMessage.of("task"), AssistantMessage(content=[TextContent(text="hi")])]
    assert plan_compaction(history, keep_tokens=1) is None
    longer: list[AnyMessage] = [*history, AssistantMessage(content=[TextContent(text="more")])]
    plan = plan_compaction(longer, keep_tokens=1)
    assert plan is not None
    assert plan_compaction(sliding_window(longer, plan), keep_tokens=1) is None  # only the old marker would go


def test_a_second_summary_folds_in_the_first() -> None:
    rng = random.Random(3)
    history = random_history(rng, 8)
    plan = plan_compaction(history, keep_tokens=200)
    assert plan is not None
    once = summarized(history, plan, "FIRST SUMMARY")
    assert is_compaction_message(once[plan.head]) and SUMMARY_PREFIX in once[plan.head].text  # type: ignore[union-attr]
    extended = once + random_history(rng, 6)[1:]
    again = plan_compaction(extended, keep_tokens=200)
    assert again is not None and again.head == plan.head
    text = summary_request_text(extended[again.head : again.cut], max_chars=100_000)
    assert "<previous-summary>" in text and "FIRST SUMMARY" in text and "## Next Steps" in text


def test_summary_request_is_capped_keeping_the_newest_text() -> None:
    history: list[AnyMessage] = [UserMessage.of("old " * 1000), UserMessage.of("new")]
    text = summary_request_text(history, max_chars=500)
    assert "[... earlier conversation omitted ...]" in text and "[User]: new" in text


def test_context_tokens_prefer_reported_usage() -> None:
    answer = AssistantMessage(content=[TextContent(text="x")], usage=Usage(input=100, cache_read=900, output=50))
    result = ToolResultMessage(tool_call_id="c", tool_name="bash", content=[TextContent(text="y" * 400)])
    assert context_tokens([UserMessage.of("t"), answer, result]) == 1050 + 100
    assert context_tokens([UserMessage.of("z" * 40)]) == messages_tokens([UserMessage.of("z" * 40)]) == 10
