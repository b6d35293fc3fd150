"""``replace_messages`` never separates a tool call from its result and never leaves a history
that opens with an assistant or tool message (issue 10; ``agent/history.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.history import rebase
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


def test_a_replacement_made_mid_batch_keeps_the_turn_whole() -> None:
    user, turn = UserMessage.of("go"), reply("", call("echo", "a", value="1"), call("echo", "b", value="2"))
    current = [user, turn, result("a"), result("b")]
    # queued after the assistant message, before its results: the caller saw [user, turn] and
    # dropped the turn (say, a compaction), or added synthetic results for it (say, a repair)
    summary = UserMessage.of("summary")
    assert rebase([summary], current, tail_len=2) == [summary, *current[1:]]
    repaired = [user, turn, result("a"), result("b")]
    merged = rebase(repaired, current, tail_len=2)
    assert merged == current
    check_pairs(merged)


def test_messages_persisted_after_a_clean_replacement_are_kept() -> None:
    current = [UserMessage.of("go"), reply("hi"), UserMessage.of("steer"), reply("ok")]
    short = UserMessage.of("short")
    assert rebase([short], current, tail_len=2) == [short, *current[2:]]


def test_a_reset_drops_leading_turns_up_to_a_user_message() -> None:
    turn = reply("", call("echo", "a", value="1"))
    current = [UserMessage.of("go"), turn, result("a"), UserMessage.of("later")]
    assert rebase([], current, tail_len=3) == current[3:]
    assert rebase([], current, tail_len=2) == current[3:]


async def test_replacement_queued_between_call_and_result_leaves_no_orphan(tmp_path: Path) -> None:
    """Issue 10: "a replace_messages queued between a tool call and its results leaves a tool
    result whose call is gone"."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("echo", "c1", value="x"), call("echo", "c2", value="y")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("echo")])
    fired: list[bool] = []

    def compact(event: Any) -> None:
        if not fired:  # the history now ends with the assistant message; its results are not in
            fired.append(True)
            s.replace_messages([UserMessage.of("compacted")], "compaction")

    hooks.on("tool_execution_start", compact)
    end = await s.prompt("go")
    assert end.error is None
    check_pairs(s.messages)
    for request in provider.requests:
        check_pairs(request.messages)
    assert [m.role for m in provider.requests[1].messages] == ["user", "assistant", "toolResult", "toolResult"]


def test_a_replacement_opening_with_the_model_is_refused(tmp_path: Path) -> None:
    s = session(tmp_path, ScriptedProvider())
    with pytest.raises(ValueError, match="must start with a user message"):
        s.replace_messages([reply("hi")], "bad")
    with pytest.raises(ValueError, match="must start with a user message"):
        s.replace_messages([result("x")], "bad")
    assert s.messages == []
