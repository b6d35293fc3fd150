"""Ported from Pi: ``packages/agent/test/agent.test.ts`` (earendil-works/pi, v0.8x).

Pi's ``Agent`` maps onto ``AgentSession``: ``prompt``, ``steer``, ``followUp``, ``abort``,
listeners (here a ``SessionHooks``), ``state`` (here the getters). Each test names its source
case; where the project deliberately differs the docstring says so and the test asserts the
project's behaviour.

Not ported: the default stream function, ``continue()``, ``waitForIdle()`` (``prompt`` returns
only after the last listener settled, which the async-subscriber case checks),
``prepareNextTurn``/``shouldStopAfterTurn`` options (the session owns its save points).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.session import SessionBusyError
from aw_action.agent.tools import ToolResult, UpdateCallback
from aw_action.ai.types import AbortSignal, AssistantMessage, Model, ProviderRequest, UserMessage
from tests.agent.support import Gate, Recorder, ScriptedProvider, call, reply, session, settle, tool, user_texts


async def test_a_new_session_starts_idle_and_empty(tmp_path: Path) -> None:
    """agent: "should create an agent instance with default state"."""
    s = session(tmp_path, ScriptedProvider())
    assert (s.phase, s.is_idle, s.system_prompt, s.tools, s.messages) == ("idle", True, "", [], [])
    assert s.queued == {"steer": [], "follow_up": [], "next_turn": []}
    assert not s.signal.aborted and s.abort_reason is None


async def test_a_raising_provider_ends_the_run_with_an_error_message(tmp_path: Path) -> None:
    """agent: "emits full lifecycle events for thrown run failures". The provider contract says
    ``stream`` never raises; one that does (say, registered by an extension) becomes an assistant
    error message, persisted, then ``turn_end`` and ``agent_end``; nothing escapes ``prompt``.
    ``request_end`` is the project's own usage record."""

    class Exploding:
        name = "exploding"

        def stream(self, request: ProviderRequest, hooks: Any, abort: AbortSignal) -> Any:
            raise RuntimeError("provider exploded")

    hooks = Recorder()
    s = session(tmp_path, ScriptedProvider(), hooks, transcript=True)
    s._resolve_provider = lambda m: Exploding()  # type: ignore[assignment,return-value]
    end = await s.prompt("hello")
    assert hooks.types() == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "request_end",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    last = s.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert last.error_message is not None and "provider exploded" in last.error_message
    assert end.error == last.error_message
    saved = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()]
    assert saved[-1]["type"] == "message" and saved[-1]["message"]["stop_reason"] == "error"
    assert s.phase == "idle"


async def test_a_provider_raising_mid_stream_is_an_error_turn(tmp_path: Path) -> None:
    """agent: "emits full lifecycle events for thrown run failures", with the provider failing
    after it started streaming (an async generator that raises)."""

    class Breaking:
        name = "breaking"

        async def stream(self, request: ProviderRequest, hooks: Any, abort: AbortSignal) -> Any:
            from aw_action.ai.types import StreamStart

            yield StreamStart(AssistantMessage())
            raise ConnectionResetError("peer went away")

    hooks = Recorder()
    s = session(tmp_path, ScriptedProvider(), hooks)
    s._resolve_provider = lambda m: Breaking()  # type: ignore[assignment,return-value]
    end = await s.prompt("hello")
    assert end.error is not None and "peer went away" in end.error
    assert hooks.types("turn_end", "agent_end") == ["turn_end", "agent_end"]
    [turn_end] = hooks.of("turn_end")
    assert turn_end.message.stop_reason == "error" and turn_end.tool_results == []


async def test_prompt_waits_for_async_listeners(tmp_path: Path) -> None:
    """agent: "should await async subscribers before prompt resolves"."""
    barrier, finished = Gate(), []
    hooks = Recorder()

    async def slow_listener(event: Any) -> None:
        await barrier.wait()
        finished.append(True)

    hooks.on("agent_end", slow_listener)
    s = session(tmp_path, ScriptedProvider(reply("ok")), hooks)
    task = asyncio.create_task(s.prompt("hello"))
    await settle(lambda: bool(hooks.of("agent_end")))
    assert not task.done() and not finished and s.phase == "turn"
    barrier.release()
    await task
    assert finished == [True] and s.phase == "idle"


async def test_listeners_see_the_active_signal_and_abort_sets_it(tmp_path: Path) -> None:
    """agent: "should pass the active abort signal to subscribers"."""
    hooks = Recorder()
    seen: list[AbortSignal] = []
    hooks.on("agent_start", lambda e: seen.append(s.signal))

    async def never(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    s = session(tmp_path, ScriptedProvider(never), hooks)
    task = asyncio.create_task(s.prompt("hello"))
    await settle(lambda: bool(seen) and len(hooks.of("message_start")) == 1)  # the request is in flight
    assert not seen[0].aborted
    s.abort()
    end = await task
    assert seen[0].aborted and end.error == "aborted"


async def test_tool_updates_after_the_tool_settled_are_ignored(tmp_path: Path) -> None:
    """agent: "should ignore tool updates after the tool execution settles"."""
    kept: list[UpdateCallback] = []

    async def delayed(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        kept.append(update)
        await update(ToolResult.text("running"))
        return ToolResult.text("ok")

    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("delayed_tool", "call-1")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("delayed_tool", delayed, type="object", properties={})])
    await s.prompt("run tool")
    count = len(hooks.events)
    await kept[0](ToolResult.text("late"))
    assert len(hooks.of("tool_execution_update")) == 1
    assert len(hooks.events) == count


async def test_a_settled_parallel_tool_cannot_update_while_another_runs(tmp_path: Path) -> None:
    """agent: "should ignore a settled parallel tool update while another tool is still running"."""
    kept: list[UpdateCallback] = []
    release = Gate()

    async def settled(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        kept.append(update)
        return ToolResult.text("done")

    async def slow(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        await release.wait()
        return ToolResult.text("done")

    hooks = Recorder()
    ended = Gate()
    hooks.on("tool_execution_end", lambda e: ended.release() if e.tool_call_id == "call-1" else None)
    empty = {"type": "object", "properties": {}}
    provider = ScriptedProvider(reply("", call("settled_tool", "call-1"), call("slow_tool", "call-2")), reply("ok"))
    s = session(tmp_path, provider, hooks, [tool("settled_tool", settled, **empty), tool("slow_tool", slow, **empty)])
    task = asyncio.create_task(s.prompt("run tools"))
    await ended.wait()
    before = len(hooks.events)
    await kept[0](ToolResult.text("late"))
    assert len(hooks.events) == before
    release.release()
    await task
    assert hooks.of("tool_execution_update") == []


async def test_setters_change_the_latest_config(tmp_path: Path) -> None:
    """agent: "should update state with mutators" (getters return copies)."""
    s = session(tmp_path, ScriptedProvider())
    s.set_system_prompt("Custom prompt")
    other = Model(id="other", provider="mock", api="mock")
    s.set_model(other)
    tools = [tool("test")]
    s.set_tools(tools)
    assert (s.system_prompt, s.model, [t.name for t in s.tools]) == ("Custom prompt", other, ["test"])
    s.tools.pop()
    s.messages.append(UserMessage.of("not persisted"))
    assert [t.name for t in s.tools] == ["test"] and s.messages == []


async def test_steer_and_follow_up_only_queue(tmp_path: Path) -> None:
    """agent: "should support steering message queue" and "should support follow-up message queue"."""
    s = session(tmp_path, ScriptedProvider())
    s.steer("Steering message")
    s.follow_up("Follow-up message")
    assert s.messages == []
    assert s.queued["steer"] == ["Steering message"] and s.queued["follow_up"] == ["Follow-up message"]


async def test_abort_while_idle_does_not_touch_the_next_prompt(tmp_path: Path) -> None:
    """agent: "should handle abort controller" (abort with nothing running does not throw), and
    issue 10: it must not poison the next prompt either."""
    provider = ScriptedProvider(reply("fine"))
    s = session(tmp_path, provider)
    s.abort("too early")
    end = await s.prompt("hello")
    assert end.error is None and s.abort_reason is None
    assert [m.role for m in s.messages] == ["user", "assistant"]


async def test_cancel_pending_cancels_the_prompt_that_has_not_started(tmp_path: Path) -> None:
    """Project API (no Pi source): the CLI's early cancel. ``cancel_pending`` while idle makes
    the next prompt end at once with the reason, sending nothing; it is one-shot."""
    provider = ScriptedProvider(reply("fine"))
    s = session(tmp_path, provider)
    s.cancel_pending("cancelled")
    end = await s.prompt("hello")
    assert (end.error, s.abort_reason, len(provider.requests)) == ("cancelled", "cancelled", 0)
    end = await s.prompt("again")
    assert end.error is None and len(provider.requests) == 1


async def test_a_reset_while_processing_is_refused_without_corrupting_the_transcript(tmp_path: Path) -> None:
    """agent: "should reject reset while processing without corrupting the transcript" (Pi's
    ``Agent.reset()`` throws "Agent is already processing. Wait for completion before
    resetting."). A reset here is ``replace_messages([])``: while the request is in flight it
    raises ``SessionBusyError`` and the history keeps the prompt; released, the run completes
    with the prompt and the answer."""
    started, release = Gate(), Gate()

    async def held(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        started.release()
        await release.wait()
        return reply("Done")

    s = session(tmp_path, ScriptedProvider(held), transcript=True)
    running = asyncio.create_task(s.prompt("Hello"))
    await started.wait()
    try:
        assert s.phase == "turn"
        assert [m.role for m in s.messages] == ["user"]
        with pytest.raises(SessionBusyError, match="busy"):
            s.replace_messages([], "reset")
        assert s.phase == "turn"
        assert [m.role for m in s.messages] == ["user"]
    finally:
        release.release()
        await running
    assert s.phase == "idle"
    assert [m.role for m in s.messages] == ["user", "assistant"]
    assert "history_replaced" not in (tmp_path / "session.jsonl").read_text()


async def test_prompt_while_running_is_rejected(tmp_path: Path) -> None:
    """agent: "should throw when prompt() called while streaming"."""

    async def never(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    s = session(tmp_path, ScriptedProvider(never))
    first = asyncio.create_task(s.prompt("First message"))
    await settle(lambda: s.phase == "turn")
    with pytest.raises(SessionBusyError, match="use steer"):
        await s.prompt("Second message")
    s.abort()
    await first


async def test_the_session_id_is_forwarded_to_the_provider(tmp_path: Path) -> None:
    """agent: "forwards sessionId to streamFunction options"."""
    provider = ScriptedProvider(reply("ok"))
    await session(tmp_path, provider, session_id="session-abc").prompt("hello")
    assert provider.requests[0].session_id == "session-abc"


async def test_abort_ends_the_current_run_only(tmp_path: Path) -> None:
    """Issue 10 / Pi ``Agent.abort()`` ("aborts the active run only"): after an aborted prompt
    the next one runs normally."""

    async def never(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    provider = ScriptedProvider(never, reply("second"))
    s = session(tmp_path, provider)
    first = asyncio.create_task(s.prompt("first"))
    await settle(lambda: len(provider.requests) == 1)
    s.abort("stop")
    assert (await first).error == "stop"
    end = await s.prompt("second")
    assert end.error is None and not s.signal.aborted
    assert user_texts(provider.requests[1].messages) == ["first", "second"]


async def test_a_raising_agent_end_listener_ends_the_run_once(tmp_path: Path) -> None:
    """Contract violation after ``agent_end``: no second ``agent_end``, nothing persisted after it."""
    hooks = Recorder()

    def explode(event: Any) -> None:
        raise RuntimeError("late listener bug")

    hooks.on("agent_end", explode)
    s = session(tmp_path, ScriptedProvider(reply("ok")), hooks)
    end = await s.prompt("hello")
    assert end.error == "RuntimeError: late listener bug"
    assert hooks.types("agent_end") == ["agent_end"]
    assert [m.role for m in s.messages] == ["user", "assistant"] and s.phase == "idle"
