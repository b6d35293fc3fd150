"""Session repair in a running session: sanitising, history fixes, recovery follow-ups."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.agent.events import ToolCallEvent
from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from aw_action.extensions import cost_tracker, repair
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.repair_rules import INTERRUPTED
from tests.extensions.rig import echo_tool, make_rig

BUILTINS = [("cost-tracker", cost_tracker.setup), ("repair", repair.setup)]


def results(messages: list[Any]) -> list[ToolResultMessage]:
    return [m for m in messages if isinstance(m, ToolResultMessage)]


async def test_corrupted_tool_result_is_sanitised_before_it_reaches_the_history(tmp_path: Path) -> None:
    tool = echo_tool(text="bytes \udcff\udcfe and \x1b[1mbold\x1b[0m\x00")
    script = [{"tool_calls": [{"name": "echo", "arguments": {}}]}, {"text": "done"}]
    rig = await make_rig(tmp_path, script, BUILTINS, tools=[tool])
    assert await rig.run() == "completed"
    [saved] = results(rig.session.messages)
    assert saved.text == "bytes \ufffd\ufffd and bold"
    sent = results(rig.provider.requests[1].messages)
    assert sent[0].text == saved.text
    [record] = rig.named("repair")
    assert record["action"] == "sanitized_tool_result" and record["tool_name"] == "echo"


async def test_invalid_json_arguments_are_fixed_in_the_history(tmp_path: Path) -> None:
    script = [{"tool_calls": [{"name": "echo", "arguments": '{"x": 1'}]}, {"text": "done"}]
    rig = await make_rig(tmp_path, script, BUILTINS, tools=[echo_tool()])
    assert await rig.run() == "completed"
    first = next(m for m in rig.session.messages if isinstance(m, AssistantMessage))
    assert first.tool_calls[0].raw_arguments is None and first.tool_calls[0].arguments == {}
    sent = [m for m in rig.provider.requests[1].messages if isinstance(m, AssistantMessage)]
    assert sent[0].tool_calls[0].raw_arguments is None
    assert results(rig.session.messages)[0].is_error  # the model was told what went wrong
    assert [r["action"] for r in rig.named("repair")] == ["invalid_tool_arguments"]


def abort_on_second_call(api: ExtensionAPI) -> None:
    def gate(event: ToolCallEvent, ctx: ExtensionContext) -> None:
        if event.tool_call_id.endswith("_0"):
            ctx.abort("cancelled")

    api.on("tool_call", gate)


async def test_calls_left_without_results_after_an_abort_get_synthetic_results(tmp_path: Path) -> None:
    calls = [{"name": "echo", "arguments": {}}, {"name": "echo", "arguments": {}}]
    script = [{"tool_calls": calls}, {"text": "never"}]
    rig = await make_rig(tmp_path, script, [*BUILTINS, ("aborter", abort_on_second_call)], tools=[echo_tool()])
    assert await rig.run() == "cancelled"
    saved = results(rig.session.messages)
    assert [r.tool_call_id for r in saved] == ["call_1_0", "call_1_1"]
    assert saved[1].is_error and saved[1].text == INTERRUPTED
    assert [(r["action"], r["tool_call_id"]) for r in rig.named("repair")] == [("synthetic_tool_result", "call_1_1")]


async def test_broken_history_is_repaired_for_the_request_and_then_persisted(tmp_path: Path) -> None:
    script = [{"tool_calls": [{"name": "echo", "arguments": {}}]}, {"text": "done"}]
    rig = await make_rig(tmp_path, script, BUILTINS, tools=[echo_tool()])
    ghost = ToolResultMessage(tool_call_id="ghost", tool_name="bash", content=[TextContent(text="?")])
    dangling = AssistantMessage(content=[ToolCall(id="old", name="bash")], stop_reason="toolUse")
    rig.session.replace_messages([UserMessage.of("earlier"), ghost, dangling], "resume")
    assert await rig.run() == "completed"
    first_request = rig.provider.requests[0].messages
    assert not any(isinstance(m, ToolResultMessage) and m.tool_call_id == "ghost" for m in first_request)
    assert [r.tool_call_id for r in results(first_request)] == ["old"]
    persisted = results(rig.session.messages)
    assert [r.tool_call_id for r in persisted] == ["old", "call_1_0"]
    actions = {(r["action"], r["persisted"]) for r in rig.named("repair")}
    assert actions == {("orphan_tool_result_dropped", False), ("synthetic_tool_result", False)}


async def test_transient_failure_gets_a_follow_up_with_a_progress_summary(tmp_path: Path) -> None:
    script = [
        {"text": "looking", "tool_calls": [{"name": "echo", "arguments": {}}]},
        {"error": {"message": "overloaded_error: Overloaded", "kind": "transient"}},
        {"text": "done"},
    ]
    rig = await make_rig(tmp_path, script, BUILTINS, tools=[echo_tool()])
    assert await rig.run() == "completed"
    follow_ups = [m for m in rig.session.messages if isinstance(m, UserMessage) and m.source == "follow_up"]
    assert len(follow_ups) == 1
    assert "overloaded_error: Overloaded" in follow_ups[0].text
    assert "echo x1" in follow_ups[0].text and 'Your last note: "looking"' in follow_ups[0].text
    [record] = rig.named("repair")
    assert record["action"] == "follow_up_after_recoverable_error" and record["kind"] == "transient"


async def test_recovery_is_tried_at_most_twice(tmp_path: Path) -> None:
    failure = {"error": {"message": "rate limited", "kind": "transient"}}
    rig = await make_rig(tmp_path, [failure, failure, failure, {"text": "never"}], BUILTINS)
    assert await rig.run() == "error"
    assert rig.provider.calls == 3
    assert [r["action"] for r in rig.named("repair")] == [
        "follow_up_after_recoverable_error",
        "follow_up_after_recoverable_error",
        "recovery_exhausted",
    ]


async def test_fatal_failure_is_not_retried(tmp_path: Path) -> None:
    rig = await make_rig(tmp_path, [{"error": {"message": "invalid x-api-key", "kind": "fatal"}}], BUILTINS)
    assert await rig.run() == "error"
    assert rig.provider.calls == 1 and rig.named("repair") == []


async def test_rejected_history_is_repaired_and_followed_up(tmp_path: Path) -> None:
    message = "messages.2: tool_use ids were found without tool_result blocks immediately after"
    rig = await make_rig(tmp_path, [{"error": {"message": message, "kind": "fatal"}}, {"text": "done"}], BUILTINS)
    assert await rig.run() == "completed"
    [record] = rig.named("repair")
    assert record["kind"] == "history"
