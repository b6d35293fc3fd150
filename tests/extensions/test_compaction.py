"""Compaction in a running session: threshold, strategies, and overflow recovery."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.agent.compaction import SUMMARY_SYSTEM_PROMPT
from aw_action.ai.types import AssistantMessage, Model, ToolResultMessage, UserMessage
from aw_action.extensions import compaction, cost_tracker, repair, steering
from tests.extensions.rig import Rig, echo_tool, make_rig

SMALL = Model(id="scripted", provider="faux", api="faux", context_window=2000, max_output_tokens=1000)
BUILTINS = [
    ("cost-tracker", cost_tracker.setup),
    ("steering", steering.setup),
    ("repair", repair.setup),
    ("compaction", compaction.setup),
]
BIG_RESULT = "r" * 1200  # about 300 tokens
TOOL = {"tool_calls": [{"name": "echo", "arguments": {}}]}


def shape(messages: list[Any]) -> list[str]:
    out = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            out.append("A")
        elif isinstance(m, ToolResultMessage):
            out.append("R")
        else:
            out.append(m.source)
    return out


async def rig_for(tmp_path: Path, strategy: str, script: list[dict[str, Any]]) -> Rig:
    config = {"harness": {"context": {"compaction": strategy, "compaction-threshold": 0.5}}}
    return await make_rig(tmp_path, script, BUILTINS, config=config, tools=[echo_tool(text=BIG_RESULT)], model=SMALL)


async def test_sliding_window_drops_the_middle_at_the_threshold(tmp_path: Path) -> None:
    script = [
        {**TOOL, "usage": {"input": 200}},
        {**TOOL, "usage": {"input": 1100}},
        {"text": "done", "usage": {"input": 10}},
    ]
    rig = await rig_for(tmp_path, "sliding-window", script)
    assert await rig.run() == "completed"
    assert shape(rig.provider.requests[2].messages) == ["prompt", "compaction", "A", "R"]
    assert shape(rig.session.messages) == ["prompt", "compaction", "A", "R", "A"]
    [record] = rig.named("compaction")
    assert record["strategy"] == "sliding-window" and record["reason"] == "threshold"
    assert record["tokens_before"] >= 1000 > record["tokens_after"]
    assert record["dropped_messages"] == 2


async def test_below_the_threshold_nothing_happens(tmp_path: Path) -> None:
    script = [
        {**TOOL, "usage": {"input": 200}},
        {**TOOL, "usage": {"input": 300}},
        {"text": "done", "usage": {"input": 10}},
    ]
    rig = await rig_for(tmp_path, "sliding-window", script)
    assert await rig.run() == "completed"
    assert rig.named("compaction") == [] and len(rig.session.messages) == 6


async def test_summarize_asks_the_model_and_counts_the_request(tmp_path: Path) -> None:
    summary = "## Goal\nDo the task.\n## Progress\n### Done\nRan echo."
    script = [
        {**TOOL, "usage": {"input": 200}},
        {**TOOL, "usage": {"input": 1100}},
        {"text": summary, "usage": {"input": 500, "output": 40}},
        {"text": "done", "usage": {"input": 10}},
    ]
    rig = await rig_for(tmp_path, "summarize", script)
    assert await rig.run() == "completed"
    request = rig.provider.requests[2]
    assert request.purpose == "compaction" and request.tools == [] and request.system_prompt == SUMMARY_SYSTEM_PROMPT
    assert "<conversation>" in request.messages[0].text and "[Tool result (echo)]" in request.messages[0].text  # type: ignore[union-attr]
    record = rig.state.ledger.requests[2]
    assert record.purpose == "compaction" and record.effective_tokens == 500 + 4 * 40 and record.steering is None
    history = rig.session.messages
    assert shape(history) == ["prompt", "compaction", "A", "R", "A"]
    assert "<summary>\n" + summary + "\n</summary>" in history[1].text  # type: ignore[union-attr]
    assert shape(rig.provider.requests[3].messages) == ["prompt", "compaction", "A", "R"]
    [event] = rig.named("compaction")
    assert event["strategy"] == "summarize"


async def test_failed_summary_falls_back_to_the_sliding_window(tmp_path: Path) -> None:
    script = [
        {**TOOL, "usage": {"input": 200}},
        {**TOOL, "usage": {"input": 1100}},
        {"error": {"message": "boom", "kind": "fatal"}},
        {"text": "done", "usage": {"input": 10}},
    ]
    rig = await rig_for(tmp_path, "summarize", script)
    assert await rig.run() == "completed"
    [event] = rig.named("compaction")
    assert event["strategy"] == "sliding-window"
    assert any("context summary failed" in w["message"] for w in rig.named("warning"))
    assert rig.state.ledger.requests[2].status == "error"


async def test_context_overflow_is_compacted_and_retried_once(tmp_path: Path) -> None:
    overflow = {"error": {"message": "prompt is too long: 2100 tokens > 2000 maximum", "kind": "overflow"}}
    script = [{**TOOL, "usage": {"input": 200}}, {**TOOL, "usage": {"input": 400}}, overflow, {"text": "done"}]
    rig = await rig_for(tmp_path, "none", script)
    assert await rig.run() == "completed"
    [event] = rig.named("compaction")
    assert event["reason"] == "overflow" and event["strategy"] == "sliding-window"
    retry = rig.provider.requests[3].messages
    assert shape(retry)[:2] == ["prompt", "compaction"] and shape(retry)[-1] == "follow_up"
    assert "overflowed the model's context window" in retry[-1].text  # type: ignore[union-attr]
    assert "2 model response(s)" in retry[-1].text  # type: ignore[union-attr]  # counted before compaction


async def test_second_overflow_is_not_retried(tmp_path: Path) -> None:
    overflow = {"error": {"message": "context_length_exceeded", "kind": "overflow"}}
    script = [
        {**TOOL, "usage": {"input": 200}},
        {**TOOL, "usage": {"input": 400}},
        overflow,
        overflow,
        {"text": "never"},
    ]
    rig = await rig_for(tmp_path, "none", script)
    assert await rig.run() == "error"
    assert rig.provider.calls == 4
    assert [r["action"] for r in rig.named("repair")][-1] == "overflow_recovery_failed"
    assert not any(isinstance(m, UserMessage) and m.source == "follow_up" for m in rig.provider.requests[2].messages)


async def test_nothing_to_drop_is_reported_once_not_every_turn(tmp_path: Path) -> None:
    """Large tool definitions or a large system prompt keep the context over the threshold while
    the history has nothing to drop: one warning, not one a turn."""
    script = [{**TOOL, "usage": {"input": 1500}} for _ in range(4)] + [{"text": "done", "usage": {"input": 10}}]
    config = {"harness": {"context": {"compaction": "sliding-window", "compaction-threshold": 0.5}}}
    rig = await make_rig(tmp_path, script, BUILTINS, config=config, tools=[echo_tool(text="ok")], model=SMALL)
    assert await rig.run() == "completed"
    assert rig.named("compaction") == []
    assert [w["message"] for w in rig.named("warning")] == [
        "context compaction (threshold) found nothing to drop: the system prompt, the tool definitions or the most "
        "recent messages fill the context"
    ]


async def test_no_summary_is_bought_after_the_final_answer(tmp_path: Path) -> None:
    """Compaction only pays off when another request follows: over the threshold at the final
    answer, nothing is compacted and no summary request is made."""
    script = [
        {**TOOL, "usage": {"input": 200}},
        {**TOOL, "usage": {"input": 300}},
        {**TOOL, "usage": {"input": 400}},
        {"text": "done", "usage": {"input": 1500}},
        {"text": "no summary"},
    ]
    rig = await rig_for(tmp_path, "summarize", script)
    assert await rig.run() == "completed"
    assert rig.provider.calls == 4 and rig.named("compaction") == [] and rig.named("warning") == []
