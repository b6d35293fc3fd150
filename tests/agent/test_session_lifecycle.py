"""Lifecycle suite: listeners and hooks close over the session and call its public API."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.events import (
    AgentEvent,
    AnyMessage,
    ToolCallEvent,
    ToolCallResult,
    ToolResultEvent,
    TurnEnd,
)
from aw_action.agent.hooks import NullHooks
from aw_action.agent.session import AgentSession, SessionBusyError
from aw_action.agent.tools import ToolContext, ToolResult
from aw_action.agent.transcript import Transcript
from aw_action.ai.catalog import resolve_model
from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import AbortSignal, Model, TextContent, ToolResultMessage, UserMessage
from aw_action.extensions.pi_tools import FunctionTool

Listener = Callable[[AgentEvent], Awaitable[None] | None]


class Hooks(NullHooks):
    """Records every event; runs listeners registered per event type."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self.listeners: dict[str, list[Listener]] = {}
        self.tool_call_hook: Callable[[ToolCallEvent], ToolCallResult] | None = None
        self.tool_result_hook: Callable[[ToolResultEvent], ToolResultMessage] | None = None

    def on(self, type_: str, listener: Listener) -> None:
        self.listeners.setdefault(type_, []).append(listener)

    async def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
        for listener in self.listeners.get(event.type, []):
            result = listener(event)
            if result is not None:
                await result

    async def tool_call(self, event: ToolCallEvent) -> ToolCallResult:
        return self.tool_call_hook(event) if self.tool_call_hook else ToolCallResult()

    async def tool_result(self, event: ToolResultEvent) -> ToolResultMessage:
        return self.tool_result_hook(event) if self.tool_result_hook else event.result

    def types(self) -> list[str]:
        return [e.type for e in self.events]


def make_tool(name: str, calls: list[dict[str, Any]]) -> FunctionTool:
    async def run(
        call_id: str, args: dict[str, Any], signal: AbortSignal, on_update: Any, ctx: ToolContext
    ) -> ToolResult:
        calls.append(args)
        return ToolResult.text(f"{name} ran with {args.get('x')}")

    schema = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    return FunctionTool(name, f"the {name} tool", schema, run)


def make_session(
    tmp_path: Path, turns: list[dict[str, Any]], hooks: Hooks, tool_calls: list[dict[str, Any]]
) -> tuple[AgentSession, FauxProvider]:
    provider = FauxProvider(turns)
    model = resolve_model("faux/scripted")
    session = AgentSession(
        model=model,
        resolve_provider=lambda m: provider,
        tools=[make_tool("echo", tool_calls), make_tool("other", tool_calls)],
        system_prompt="A",
        hooks=hooks,
        tool_context=ToolContext(cwd=tmp_path, output_dir=tmp_path),
        transcript=Transcript(tmp_path / "session.jsonl", session_id="s1", cwd=str(tmp_path), model=model.ref),
    )
    return session, provider


def tool_turn(*xs: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "echo", "arguments": {"x": x}} for x in xs]}


def user_texts(messages: list[AnyMessage]) -> list[str]:
    return [m.text for m in messages if isinstance(m, UserMessage)]


async def test_event_order_of_one_tool_turn(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [tool_turn("a"), {"text": "done"}], hooks, [])
    await session.prompt("go")
    assert hooks.types() == [
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_update",
        "request_end",
        "message_end",
        "tool_execution_start",
        "tool_execution_end",
        "message_start",
        "message_end",
        "turn_end",
        "turn_start",
        "message_start",
        "message_update",
        "request_end",
        "message_end",
        "turn_end",
        "agent_end",
    ]
    assert session.phase == "idle"


async def test_prompt_is_rejected_while_busy_from_every_event(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [tool_turn("a"), {"text": "done"}], hooks, [])
    rejected: list[str] = []

    async def try_prompt(event: AgentEvent) -> None:
        with pytest.raises(SessionBusyError):
            await session.prompt("again")
        rejected.append(event.type)

    for type_ in ("agent_start", "turn_start", "message_update", "tool_execution_start", "turn_end", "agent_end"):
        hooks.on(type_, try_prompt)
    await session.prompt("go")
    assert set(rejected) == {
        "agent_start",
        "turn_start",
        "message_update",
        "tool_execution_start",
        "turn_end",
        "agent_end",
    }
    assert session.phase == "idle"
    end = await session.prompt("second prompt works once idle")
    assert end.error is not None  # the script is exhausted: a provider error, yet the call was accepted


async def test_setters_mid_turn_affect_only_the_next_request(tmp_path: Path) -> None:
    hooks = Hooks()
    session, provider = make_session(tmp_path, [tool_turn("a"), tool_turn("b"), {"text": "done"}], hooks, [])
    other_model = Model(id="scripted-2", provider="faux", api="faux")

    def change(event: AgentEvent) -> None:
        if len(provider.requests) == 1:
            session.set_system_prompt("B")
            session.set_model(other_model)
            session.set_active_tools(["echo"])
            assert session.system_prompt == "B"  # getters return the latest config at once

    hooks.on("tool_execution_start", change)
    await session.prompt("go")
    first, second, third = provider.requests
    assert (first.system_prompt, first.model.id, [t.name for t in first.tools]) == ("A", "scripted", ["echo", "other"])
    assert (second.system_prompt, second.model.id, [t.name for t in second.tools]) == ("B", "scripted-2", ["echo"])
    assert third.system_prompt == "B"


async def test_steer_from_listener_arrives_after_the_whole_tool_batch(tmp_path: Path) -> None:
    hooks = Hooks()
    session, provider = make_session(tmp_path, [tool_turn("a", "b"), {"text": "done"}], hooks, [])
    steered: list[bool] = []

    def steer_once(event: AgentEvent) -> None:
        if not steered:
            steered.append(True)
            session.steer("STEER")

    hooks.on("tool_execution_end", steer_once)
    await session.prompt("go")
    roles = [(m.role, getattr(m, "text", "")) for m in provider.requests[1].messages]
    assert [r for r, _ in roles] == ["user", "assistant", "toolResult", "toolResult", "user"]
    assert roles[-1][1] == "STEER"


async def test_follow_up_is_delivered_only_when_the_agent_would_stop(tmp_path: Path) -> None:
    hooks = Hooks()
    session, provider = make_session(tmp_path, [tool_turn("a"), {"text": "first stop"}, {"text": "after"}], hooks, [])
    hooks.on("turn_start", lambda e: session.follow_up("FOLLOW") if len(provider.requests) == 0 else None)
    await session.prompt("go")
    assert len(provider.requests) == 3
    assert user_texts(provider.requests[1].messages) == ["go"]
    assert user_texts(provider.requests[2].messages) == ["go", "FOLLOW"]


async def test_abort_from_listener_stops_tools_and_requests(tmp_path: Path) -> None:
    hooks = Hooks()
    ran: list[dict[str, Any]] = []
    session, provider = make_session(tmp_path, [tool_turn("a"), {"text": "never"}], hooks, ran)
    hooks.on("tool_execution_start", lambda e: session.abort("stop-now"))
    end = await session.prompt("go")
    assert ran == []
    assert len(provider.requests) == 1
    assert end.error == "stop-now"
    assert session.abort_reason == "stop-now"
    assert session.phase == "idle"
    assert hooks.types()[-2:] == ["turn_end", "agent_end"]  # the cut-short turn still ends
    [turn_end] = [e for e in hooks.events if isinstance(e, TurnEnd)]
    assert turn_end.stop_reason == "stop-now" and not turn_end.completed


async def test_abort_during_stream_discards_the_in_flight_turn(tmp_path: Path) -> None:
    hooks = Hooks()
    ran: list[dict[str, Any]] = []
    session, _provider = make_session(tmp_path, [tool_turn("a")], hooks, ran)
    hooks.on("message_update", lambda e: session.abort("budget_exceeded"))
    end = await session.prompt("go")
    assert end.error == "budget_exceeded"
    assert ran == []
    assert [m.role for m in session.messages] == ["user"]  # the assistant turn was not persisted
    assert hooks.types()[-3:] == ["message_end", "turn_end", "agent_end"]
    [turn_end] = [e for e in hooks.events if isinstance(e, TurnEnd)]
    assert (turn_end.stop_reason, turn_end.tool_results) == ("budget_exceeded", [])
    assert turn_end.message not in session.messages


async def test_pending_writes_flush_after_the_turns_messages(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [tool_turn("a"), {"text": "done"}], hooks, [])
    hooks.on("message_update", lambda e: session.append_entry("note", {"n": 1}) if not session.pending_writes else None)
    seen_pending: list[int] = []
    hooks.on("tool_execution_end", lambda e: seen_pending.append(len(session.pending_writes)))
    await session.prompt("go")
    assert seen_pending == [1]  # queued while busy, not yet persisted
    entries = session.transcript.entries if session.transcript else []
    kinds = [e.get("message", {}).get("role") or e["type"] for e in entries[1:]]
    assert kinds[:4] == ["user", "assistant", "toolResult", "custom"]
    session.append_entry("idle-note")
    assert entries[-1]["customType"] == "idle-note"  # idle: written at once


async def test_phase_returns_to_idle_after_provider_error(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [{"error": {"message": "boom", "kind": "fatal"}}], hooks, [])
    end = await session.prompt("go")
    assert end.error == "boom"
    assert session.phase == "idle"


async def test_phase_returns_to_idle_after_listener_raises(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [{"text": "hi"}], hooks, [])

    def explode(event: AgentEvent) -> None:
        raise RuntimeError("listener bug")

    hooks.on("turn_start", explode)
    end = await session.prompt("go")  # nothing escapes prompt(): the run ends as an error (issue 10)
    assert end.error == "RuntimeError: listener bug"
    assert session.phase == "idle"
    assert session.messages[-1].role == "assistant" and session.messages[-1].stop_reason == "error"


async def test_next_turn_messages_precede_the_prompt(tmp_path: Path) -> None:
    hooks = Hooks()
    session, provider = make_session(tmp_path, [{"text": "ok"}], hooks, [])
    session.next_turn("FIRST")
    await session.prompt("SECOND")
    assert user_texts(provider.requests[0].messages) == ["FIRST", "SECOND"]


async def test_tool_errors_unknown_invalid_blocked_and_replaced(tmp_path: Path) -> None:
    hooks = Hooks()
    ran: list[dict[str, Any]] = []
    turns = [
        {
            "tool_calls": [
                {"name": "nope", "arguments": {}},
                {"name": "echo", "arguments": {"y": 1}},
                {"name": "echo", "arguments": '{"x": broken'},
                {"name": "other", "arguments": {"x": "blocked"}},
                {"name": "echo", "arguments": {"x": "fine"}},
            ]
        },
        {"text": "done"},
    ]
    session, provider = make_session(tmp_path, turns, hooks, ran)
    hooks.tool_call_hook = lambda e: ToolCallResult(block=e.tool_name == "other", reason="no others")
    hooks.tool_result_hook = lambda e: e.result.model_copy(update={"content": [TextContent(text="REPLACED")]})
    await session.prompt("go")
    results = [m for m in provider.requests[1].messages if isinstance(m, ToolResultMessage)]
    texts = [r.text for r in results]
    assert texts[0] == "Tool nope not found"
    assert texts[1].startswith("Validation failed for tool echo")
    assert texts[2].startswith("Invalid JSON arguments for tool echo")
    assert texts[3] == "no others"
    assert texts[4] == "REPLACED"
    assert [r.is_error for r in results] == [True, True, True, True, False]
    assert ran == [{"x": "fine"}]


async def test_structural_compaction_rejected_while_turn_runs(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [{"text": "ok"}], hooks, [])
    errors: list[str] = []

    async def try_structural(event: AgentEvent) -> None:
        try:
            await session.run_structural("compaction", lambda: None)
        except SessionBusyError as exc:
            errors.append(str(exc))

    hooks.on("turn_start", try_structural)
    await session.prompt("go")
    assert errors and "busy" in errors[0]
    assert await session.run_structural("compaction", lambda: 42) == 42
    assert session.phase == "idle"


async def test_dispose_flushes_and_closes(tmp_path: Path) -> None:
    hooks = Hooks()
    session, _ = make_session(tmp_path, [{"text": "ok"}], hooks, [])
    await session.prompt("go")
    session.dispose()
    session.dispose()
    assert session.disposed
    with pytest.raises(SessionBusyError):
        await session.prompt("after dispose")
    lines = (tmp_path / "session.jsonl").read_text().splitlines()
    assert len(lines) == 3  # header, user, assistant


async def test_provider_hooks_patch_only_the_current_request(tmp_path: Path) -> None:
    from aw_action.agent.events import BeforeProviderRequestEvent, ProviderRequestResult

    order: list[str] = []

    class ProviderHooks(Hooks):
        async def before_provider_request(self, event: BeforeProviderRequestEvent) -> ProviderRequestResult:
            order.append("request")
            if len(order) == 1:
                event.options.headers["x-first"] = "1"
                return ProviderRequestResult(options=event.options, steering={"type": "token", "threshold": 80})
            return ProviderRequestResult(options=event.options)

        async def before_provider_payload(self, payload: dict[str, Any], model: Model) -> dict[str, Any]:
            order.append("payload")
            return payload

        async def after_provider_response(self, status: int, headers: dict[str, str]) -> None:
            order.append(f"response:{status}")

    hooks = ProviderHooks()
    session, provider = make_session(tmp_path, [tool_turn("a"), {"text": "done"}], hooks, [])
    await session.prompt("go")
    assert order == ["request", "payload", "response:200"] * 2
    assert provider.requests[0].options.headers == {"x-first": "1"}
    assert provider.requests[1].options.headers == {}
    ends = [e for e in hooks.events if e.type == "request_end"]
    assert [getattr(e, "steering", None) for e in ends] == [{"type": "token", "threshold": 80}, None]


async def test_replace_messages_mid_stream_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    hooks = Hooks()
    session, provider = make_session(tmp_path, [tool_turn("a"), {"text": "done"}], hooks, [])
    refused: list[str] = []

    def replace_early(event: AgentEvent) -> None:
        if not refused:  # at the first assistant delta: the stream is in flight
            with pytest.raises(SessionBusyError):
                session.replace_messages([UserMessage.of("REWRITTEN PROMPT")], "test")
            refused.append("x")

    hooks.on("message_update", replace_early)
    await session.prompt("original")
    assert refused
    roles_and_text = [(m.role, getattr(m, "text", "")) for m in provider.requests[1].messages]
    assert roles_and_text[0] == ("user", "original")
    assert [r for r, _ in roles_and_text] == ["user", "assistant", "toolResult"]


async def test_end_after_turn_ends_the_prompt_cleanly_and_keeps_queued_steering_for_the_next(
    tmp_path: Path,
) -> None:
    """A workflow step ends once its completion is recorded: the turn (tool batch, ``turn_end``,
    save point) completes, no further request is made, the prompt ends without an error, and
    steering queued during the turn reaches the model with the next prompt, not never."""
    hooks = Hooks()
    ran: list[dict[str, Any]] = []
    session, provider = make_session(
        tmp_path, [tool_turn("a"), {"text": "next prompt"}, {"text": "follow-up"}], hooks, ran
    )

    def finish_step(event: AgentEvent) -> None:
        session.steer("NOTICE")
        session.follow_up("LATER")
        session.end_after_turn()

    hooks.on("tool_execution_end", finish_step)
    end = await session.prompt("step one")
    assert end.error is None and session.abort_reason is None
    assert len(provider.requests) == 1 and ran == [{"x": "a"}]
    assert hooks.types()[-3:] == ["message_end", "turn_end", "agent_end"]
    assert [m.role for m in session.messages] == ["user", "assistant", "toolResult"]
    assert session.queued["steer"] == ["NOTICE"] and session.queued["follow_up"] == ["LATER"]
    assert not session.ending  # reset with the operation

    session.end_after_turn()  # idle: nothing to end, the next prompt runs normally
    end = await session.prompt("step two")
    assert end.error is None and len(provider.requests) == 3  # answered, then the follow-up ran
    assert user_texts(provider.requests[1].messages) == ["step one", "step two", "NOTICE"]
    assert user_texts(provider.requests[2].messages)[-1] == "LATER"
