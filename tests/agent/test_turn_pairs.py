"""Every ``turn_start`` has its ``turn_end``, whenever the abort comes (``agent/loop.py``,
"Endings"; Pi's agent loop ends an aborted turn with ``turn_end`` then ``agent_end``). A turn cut
short carries the abort's reason and persists nothing it had not persisted when the signal came;
an abort after a completed turn cuts nothing short."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aw_action.agent.events import AgentEvent, TurnEnd
from aw_action.ai.types import AbortSignal, AssistantMessage, ProviderRequest, UserMessage
from tests.agent.support import Gate, Recorder, ScriptedProvider, call, reply, session, tool


def assert_paired(hooks: Recorder) -> list[TurnEnd]:
    kinds = hooks.types("turn_start", "turn_end")
    assert kinds == ["turn_start", "turn_end"] * (len(kinds) // 2) and kinds, kinds
    ends: list[TurnEnd] = hooks.of("turn_end")
    assert [e.turn_index for e in ends] == [e.turn_index for e in hooks.of("turn_start")]
    assert hooks.types()[-1] == "agent_end"
    return ends


def tool_then_done() -> ScriptedProvider:
    return ScriptedProvider(reply("working", call("echo", "c1", value="x")), reply("done"))


@pytest.mark.parametrize(
    ("moment", "persisted"),
    [
        ("message_end", ["user"]),  # the prompt is delivered, no request starts
        ("message_update", ["user"]),  # mid-stream: the answer is not persisted
        ("tool_execution_start", ["user", "assistant", "toolResult"]),  # mid-tool: an aborted result
        ("tool_execution_end", ["user", "assistant", "toolResult"]),
    ],
)
async def test_an_abort_inside_a_turn_ends_it_with_the_reason(
    tmp_path: Path, moment: str, persisted: list[str]
) -> None:
    hooks = Recorder()
    s = session(tmp_path, tool_then_done(), hooks, [tool("echo")])
    fired: list[bool] = []

    def stop(event: AgentEvent) -> None:
        if not fired:
            fired.append(True)
            s.abort("cancelled")

    hooks.on(moment, stop)
    end = await s.prompt("go")
    [turn_end] = assert_paired(hooks)
    assert (turn_end.stop_reason, turn_end.completed, end.error) == ("cancelled", False, "cancelled")
    assert [m.role for m in s.messages] == persisted
    assert hooks.types()[-2:] == ["turn_end", "agent_end"]


async def test_an_abort_at_a_completed_turn_cuts_nothing_short(tmp_path: Path) -> None:
    hooks = Recorder()
    provider = tool_then_done()
    s = session(tmp_path, provider, hooks, [tool("echo")])
    hooks.on("turn_end", lambda e: s.abort("timeout"))
    end = await s.prompt("go")
    [turn_end] = assert_paired(hooks)
    assert turn_end.completed and end.error == "timeout" and len(provider.requests) == 1


async def test_an_abort_in_the_second_turn_before_its_request(tmp_path: Path) -> None:
    """Steering delivered after ``turn_start`` of the second turn, then the abort: that turn ends
    without a request (its message is an unsent aborted one, never persisted)."""
    hooks = Recorder()
    provider = tool_then_done()
    s = session(tmp_path, provider, hooks, [tool("echo")])
    hooks.on("tool_execution_end", lambda e: s.steer("NOTICE"))
    hooks.on("message_end", lambda e: s.abort("max_turns") if getattr(e.message, "text", "") == "NOTICE" else None)
    await s.prompt("go")
    first, second = assert_paired(hooks)
    assert first.completed and second.stop_reason == "max_turns"
    assert isinstance(second.message, AssistantMessage) and second.message.stop_reason == "aborted"
    assert second.message not in s.messages and len(provider.requests) == 1
    assert isinstance(s.messages[-1], UserMessage) and s.messages[-1].text == "NOTICE"


async def test_a_cancel_before_the_prompt_still_pairs_its_turn(tmp_path: Path) -> None:
    hooks = Recorder()
    provider = ScriptedProvider(reply("never"))
    s = session(tmp_path, provider, hooks)
    s.cancel_pending("cancelled")
    await s.prompt("go")
    [turn_end] = assert_paired(hooks)
    assert turn_end.stop_reason == "cancelled" and provider.requests == []


async def test_an_abort_while_the_model_is_still_thinking(tmp_path: Path) -> None:
    started = Gate()

    async def slow(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        started.release()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    hooks = Recorder()
    s = session(tmp_path, ScriptedProvider(slow), hooks)
    running = asyncio.create_task(s.prompt("go"))
    await started.wait()
    s.abort("timeout")
    end = await running
    [turn_end] = assert_paired(hooks)
    assert (turn_end.stop_reason, turn_end.message.stop_reason, end.error) == ("timeout", "aborted", "timeout")
    assert [m.role for m in s.messages] == ["user"]
