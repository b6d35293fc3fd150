"""Ported from Pi: ``packages/agent/test/agent-loop.test.ts`` (earendil-works/pi, v0.8x).

Each test names its source case. Pi drives ``agentLoop`` with a mock stream function; here the
loop runs inside an ``AgentSession`` with a scripted provider, which is how the project runs it.

Not ported, because the project has no such feature: ``agentLoopContinue`` (no ``continue()``),
``shouldStopAfterTurn``, the ``terminate`` hint on tool results, custom message roles in
``convertToLlm`` (the project's history holds only user, assistant and tool-result messages) and
``final_answer_*`` stream events.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.agent.events import ToolCallResult
from aw_action.agent.tools import ToolResult, UpdateCallback
from aw_action.ai.types import AbortSignal, AssistantMessage, ToolResultMessage
from tests.agent.support import Gate, Recorder, ScriptedProvider, call, reply, session, tool, user_texts


async def test_emits_the_event_sequence_and_returns_the_new_messages(tmp_path: Path) -> None:
    """agent-loop: "should emit events with AgentMessage types"."""
    hooks = Recorder()
    s = session(tmp_path, ScriptedProvider(reply("Hi there!")), hooks, system_prompt="You are helpful.")
    end = await s.prompt("Hello")
    assert [m.role for m in end.messages] == ["user", "assistant"]
    assert hooks.types("agent_start", "turn_start", "message_start", "message_end", "turn_end", "agent_end") == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ]


async def test_stream_deltas_reach_listeners_as_message_update(tmp_path: Path) -> None:
    """agent-loop: "propagates final answer stream events through message_update" (the project
    streams text deltas; there is no separate final-answer block)."""
    hooks = Recorder()
    await session(tmp_path, ScriptedProvider(reply("Done")), hooks).prompt("Hello")
    updates = hooks.of("message_update")
    assert [(u.stream_event.kind, u.stream_event.delta) for u in updates] == [("text", "Done")]


async def test_failed_assistant_messages_are_not_sent_to_the_provider(tmp_path: Path) -> None:
    """agent-loop: "should handle custom message types via convertToLlm". The project's
    ``convertToLlm`` is ``llm_messages``: it drops error/aborted assistant messages."""
    provider = ScriptedProvider(AssistantMessage(stop_reason="error", error_message="boom"), reply("Response"))
    s = session(tmp_path, provider)
    await s.prompt("first")
    await s.prompt("Hello")
    assert [m.role for m in provider.requests[1].messages] == ["user", "user"]


async def test_context_hook_runs_before_the_request_is_built(tmp_path: Path) -> None:
    """agent-loop: "should apply transformContext before convertToLlm" (the ``context`` hook is
    ``transformContext``)."""
    hooks = Recorder()
    seen: list[int] = []

    def keep_last_two(messages: list[Any]) -> list[Any]:
        seen.append(len(messages))
        return messages[-2:]

    provider = ScriptedProvider(reply("r1"), reply("r2"), reply("Response"))
    s = session(tmp_path, provider, hooks)
    await s.prompt("old message 1")
    await s.prompt("old message 2")
    hooks.context_fn = keep_last_two
    await s.prompt("new message")
    assert seen == [5]
    assert [m.role for m in provider.requests[-1].messages] == ["assistant", "user"]


async def test_tool_calls_run_and_report_start_and_end(tmp_path: Path) -> None:
    """agent-loop: "should handle tool calls and results"."""
    executed: list[str] = []

    async def echo(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        executed.append(args["value"])
        return ToolResult.text(f"echoed: {args['value']}")

    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("echo", "tool-1", value="hello")), reply("done"))
    await session(tmp_path, provider, hooks, [tool("echo", echo)]).prompt("echo something")
    assert executed == ["hello"]
    [start] = hooks.of("tool_execution_start")
    [end] = hooks.of("tool_execution_end")
    assert (start.tool_call_id, end.is_error) == ("tool-1", False)


async def test_length_truncated_tool_calls_never_execute(tmp_path: Path) -> None:
    """agent-loop: "should not execute tool calls from a length-truncated assistant message"."""
    executed: list[str] = []

    async def echo(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        executed.append(args["value"])
        return ToolResult.text("ok")

    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("echo", "tool-1", value="hel"), stop="length"), reply("done"))
    end = await session(tmp_path, provider, hooks, [tool("echo", echo)]).prompt("echo something")
    assert executed == []
    [tool_end] = hooks.of("tool_execution_end")
    assert tool_end.is_error and "output token limit" in tool_end.result.text
    assert len(provider.requests) == 2  # the loop continues so the model can re-issue the call
    assert end.messages[-1].role == "assistant"


async def test_tool_call_hook_mutations_reach_the_tool_unvalidated(tmp_path: Path) -> None:
    """agent-loop: "should execute mutated beforeToolCall args without revalidation"."""
    executed: list[Any] = []

    async def echo(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        executed.append(args["value"])
        return ToolResult.text("ok")

    hooks = Recorder()

    def mutate(event: Any) -> ToolCallResult | None:
        event.input["value"] = 123
        return None

    hooks.tool_call_fn = mutate
    provider = ScriptedProvider(reply("", call("echo", "tool-1", value="hello")), reply("done"))
    await session(tmp_path, provider, hooks, [tool("echo", echo)]).prompt("echo something")
    assert executed == [123]


async def test_prepare_arguments_runs_before_validation(tmp_path: Path) -> None:
    """agent-loop: "should prepare tool arguments for validation"."""
    executed: list[Any] = []

    async def edit(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        executed.append(args["edits"])
        return ToolResult.text(f"edited {len(args['edits'])}")

    schema = {
        "type": "object",
        "properties": {"edits": {"type": "array", "items": {"type": "object"}}},
        "required": ["edits"],
    }
    edit_tool: Any = tool("edit", edit, **schema)

    def legacy(args: dict[str, Any]) -> dict[str, Any]:
        if isinstance(args.get("oldText"), str) and isinstance(args.get("newText"), str):
            return {"edits": [*args.get("edits", []), {"oldText": args["oldText"], "newText": args["newText"]}]}
        return args

    edit_tool.prepare_arguments = legacy
    provider = ScriptedProvider(reply("", call("edit", "tool-1", oldText="before", newText="after")), reply("done"))
    await session(tmp_path, provider, Recorder(), [edit_tool]).prompt("edit something")
    assert executed == [[{"oldText": "before", "newText": "after"}]]


def _first_waits(release: Gate, order: list[str]) -> Any:
    async def body(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        order.append(f"start:{args['value']}")
        if args["value"] == "first":
            await release.wait()
        order.append(f"end:{args['value']}")
        return ToolResult.text(f"echoed: {args['value']}")

    return body


def _two_calls(name_a: str = "echo", name_b: str = "echo", a: str = "first", b: str = "second") -> AssistantMessage:
    return reply("", call(name_a, "tool-1", value=a), call(name_b, "tool-2", value=b))


async def test_parallel_tools_end_in_completion_order_and_persist_in_source_order(tmp_path: Path) -> None:
    """agent-loop: "should emit tool_execution_end in completion order but persist tool results
    in source order"."""
    release, order = Gate(), []
    hooks = Recorder()
    hooks.on("tool_execution_end", lambda e: release.release())  # the second call ends first
    provider = ScriptedProvider(_two_calls(), reply("done"))
    await session(tmp_path, provider, hooks, [tool("echo", _first_waits(release, order))]).prompt("echo both")
    assert order.index("start:second") < order.index("end:first")  # ran concurrently
    assert [e.tool_call_id for e in hooks.of("tool_execution_end")] == ["tool-2", "tool-1"]
    results = [e.message.tool_call_id for e in hooks.of("message_end") if isinstance(e.message, ToolResultMessage)]
    assert results == ["tool-1", "tool-2"]
    [turn_end, _] = hooks.of("turn_end")
    assert [r.tool_call_id for r in turn_end.tool_results] == ["tool-1", "tool-2"]


async def test_steering_is_injected_after_the_whole_tool_batch(tmp_path: Path) -> None:
    """agent-loop: "should inject queued messages after all tool calls complete" (Pi sets
    ``toolExecution: "sequential"`` in the config; here the tool declares it)."""
    executed: list[str] = []
    hooks = Recorder()
    s_box: list[Any] = []

    async def echo(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        executed.append(args["value"])
        if len(executed) == 1:
            s_box[0].steer("interrupt")
        return ToolResult.text(f"ok:{args['value']}")

    provider = ScriptedProvider(_two_calls(), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("echo", echo, mode="sequential")])
    s_box.append(s)
    await s.prompt("start")
    assert executed == ["first", "second"]
    assert [e.is_error for e in hooks.of("tool_execution_end")] == [False, False]
    sequence = [
        f"tool:{e.message.tool_call_id}" if isinstance(e.message, ToolResultMessage) else e.message.text
        for e in hooks.of("message_start")
        if not isinstance(e.message, AssistantMessage)
    ]
    assert sequence.index("tool:tool-1") < sequence.index("interrupt")
    assert sequence.index("tool:tool-2") < sequence.index("interrupt")
    assert "interrupt" in user_texts(provider.requests[1].messages)


async def test_a_sequential_tool_serialises_its_batch(tmp_path: Path) -> None:
    """agent-loop: "should force sequential execution when a tool has executionMode=sequential
    even with default parallel config"."""
    release, order = Gate(), []
    hooks = Recorder()
    hooks.on("tool_execution_start", lambda e: release.release() if e.tool_call_id == "tool-1" else None)
    provider = ScriptedProvider(_two_calls("slow", "slow"), reply("done"))
    slow = tool("slow", _first_waits(release, order), mode="sequential")
    await session(tmp_path, provider, hooks, [slow]).prompt("run both")
    assert order == ["start:first", "end:first", "start:second", "end:second"]
    results = [e.message.tool_call_id for e in hooks.of("message_end") if isinstance(e.message, ToolResultMessage)]
    assert results == ["tool-1", "tool-2"]
    # sequential: each call's result message follows its own tool_execution_end (Pi's order)
    kinds = hooks.types("tool_execution_start", "tool_execution_end", "message_end")[2:]  # after user, assistant
    assert kinds[:6] == [
        "tool_execution_start",
        "tool_execution_end",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_end",
    ]


async def test_one_sequential_tool_serialises_a_mixed_batch(tmp_path: Path) -> None:
    """agent-loop: "should force sequential execution when one of multiple tools has
    executionMode=sequential"."""
    release, order = Gate(), []
    hooks = Recorder()
    hooks.on("tool_execution_start", lambda e: release.release())
    provider = ScriptedProvider(_two_calls("slow", "fast", "first", "b"), reply("done"))
    slow = tool("slow", _first_waits(release, order), mode="sequential")
    fast = tool("fast", _first_waits(release, order))
    await session(tmp_path, provider, hooks, [slow, fast]).prompt("run both")
    assert order == ["start:first", "end:first", "start:b", "end:b"]


async def test_tools_declared_parallel_run_concurrently(tmp_path: Path) -> None:
    """agent-loop: "should allow parallel execution when all tools have executionMode=parallel"."""
    release, order = Gate(), []
    hooks = Recorder()
    hooks.on("tool_execution_end", lambda e: release.release())
    provider = ScriptedProvider(_two_calls(), reply("done"))
    await session(tmp_path, provider, hooks, [tool("echo", _first_waits(release, order), mode="parallel")]).prompt(
        "echo both"
    )
    assert order.index("start:second") < order.index("end:first")


async def test_setters_during_a_turn_apply_at_the_next_request(tmp_path: Path) -> None:
    """agent-loop: "should use prepareNextTurn snapshot before continuing" (the session's save
    point is ``prepareNextTurn``)."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("echo", "tool-1", value="hello")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("echo")], system_prompt="first prompt")
    hooks.on("turn_end", lambda e: s.set_system_prompt("second prompt"))
    await s.prompt("echo something")
    assert [r.system_prompt for r in provider.requests] == ["first prompt", "second prompt"]
