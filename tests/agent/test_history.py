"""``replace_messages`` is a structural operation (seed 001, "structural operations remain
rejected while busy"; ``agent/session.py``, ``agent/history.py``): refused mid-turn with
``SessionBusyError`` and nothing changed; accepted at a turn boundary (a ``turn_end`` or
``agent_end`` listener, where repair and compaction write) and applied before anything else is
persisted, so a tool call never loses its result; a history never opens with the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.session import SessionBusyError
from aw_action.ai.types import AssistantMessage, ToolResultMessage, UserMessage
from tests.agent.support import Recorder, ScriptedProvider, call, reply, session, tool


def result(call_id: str) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=call_id, tool_name="echo")


def check_pairs(messages: list[Any]) -> None:
    """Every tool result answers a call of the assistant message before it."""
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ToolResultMessage):
            assert m.tool_call_id in open_calls, f"orphan result {m.tool_call_id}"
        else:
            open_calls = {c.id for c in m.tool_calls} if isinstance(m, AssistantMessage) else set()


def two_calls_then_done() -> ScriptedProvider:
    return ScriptedProvider(reply("", call("echo", "c1", value="x"), call("echo", "c2", value="y")), reply("done"))


async def test_a_replacement_mid_tool_batch_is_refused_and_the_turn_stays_whole(tmp_path: Path) -> None:
    """Issue 10's case (a replacement between a tool call and its results left an orphan
    result) cannot arise any more: mid-batch the replacement is refused."""
    hooks = Recorder()
    provider = two_calls_then_done()
    s = session(tmp_path, provider, hooks, [tool("echo")])
    refused: list[str] = []

    def compact(event: Any) -> None:
        if not refused:
            with pytest.raises(SessionBusyError, match="a turn is in progress") as caught:
                s.replace_messages([UserMessage.of("compacted")], "compaction")
            refused.append(str(caught.value))

    hooks.on("tool_execution_start", compact)
    end = await s.prompt("go")
    assert end.error is None and refused
    assert "replace_messages (compaction)" in refused[0] and "turn_end or agent_end listener" in refused[0]
    assert [m.role for m in provider.requests[1].messages] == ["user", "assistant", "toolResult", "toolResult"]
    check_pairs(s.messages)


@pytest.mark.parametrize("moment", ["message_start", "message_update", "message_end", "tool_execution_end"])
async def test_a_replacement_anywhere_inside_a_turn_is_refused(tmp_path: Path, moment: str) -> None:
    hooks = Recorder()
    provider = two_calls_then_done()
    s = session(tmp_path, provider, hooks, [tool("echo")])
    refusals: list[str] = []

    def replace(event: Any) -> None:
        try:
            s.replace_messages([UserMessage.of("rewritten")], "test")
        except SessionBusyError as exc:
            refusals.append(str(exc))

    hooks.on(moment, replace)
    end = await s.prompt("go")
    assert end.error is None and refusals
    assert [m.role for m in s.messages] == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    assert s.messages[0].text == "go"  # type: ignore[union-attr]


async def test_a_replacement_at_turn_end_applies_before_the_next_request(tmp_path: Path) -> None:
    """Where compaction writes: the new history is what the next request sees."""
    hooks = Recorder()
    provider = two_calls_then_done()
    s = session(tmp_path, provider, hooks, [tool("echo")], transcript=True)
    hooks.on(
        "turn_end",
        lambda e: s.replace_messages([UserMessage.of("compacted")], "compaction") if e.turn_index == 0 else None,
    )
    end = await s.prompt("go")
    assert end.error is None
    assert [(m.role, getattr(m, "text", "")) for m in provider.requests[1].messages] == [("user", "compacted")]
    assert [m.role for m in s.messages] == ["user", "assistant"]
    entries = [line for line in (tmp_path / "session.jsonl").read_text().splitlines() if "history_replaced" in line]
    assert len(entries) == 1


async def test_a_replacement_at_agent_end_applies_at_settlement(tmp_path: Path) -> None:
    hooks = Recorder()
    s = session(tmp_path, ScriptedProvider(reply("done")), hooks)
    hooks.on("agent_end", lambda e: s.replace_messages([UserMessage.of("repaired")], "repair"))
    await s.prompt("go")
    assert [m.text for m in s.messages if isinstance(m, UserMessage)] == ["repaired"]
    assert s.pending_writes == ()


async def test_a_reset_while_a_prompt_runs_is_refused_even_at_a_boundary(tmp_path: Path) -> None:
    hooks = Recorder()
    provider = two_calls_then_done()
    s = session(tmp_path, provider, hooks, [tool("echo")])
    refusals: list[str] = []

    def reset(event: Any) -> None:
        try:
            s.replace_messages([], "reset")
        except SessionBusyError as exc:
            refusals.append(str(exc))

    hooks.on("turn_end", reset)
    end = await s.prompt("go")
    assert end.error is None and len(refusals) == 2 and "needs the session idle" in refusals[0]
    assert len(provider.requests) == 2 and isinstance(s.messages[0], UserMessage)
    s.replace_messages([], "reset")  # idle: allowed
    assert s.messages == []


def test_a_replacement_opening_with_the_model_is_refused(tmp_path: Path) -> None:
    s = session(tmp_path, ScriptedProvider())
    with pytest.raises(ValueError, match="must start with a user message"):
        s.replace_messages([reply("hi")], "bad")
    with pytest.raises(ValueError, match="must start with a user message"):
        s.replace_messages([result("x")], "bad")
    assert s.messages == []
