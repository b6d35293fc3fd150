"""Ported from Pi: ``packages/agent/test/harness/agent-harness.test.ts`` and
``harness/agent-harness-stream.test.ts`` (earendil-works/pi, v0.8x).

Pi's ``AgentHarness`` is the project's ``AgentSession`` plus the extension runner (hooks with
error isolation and chaining). Each test names its source case. Where the project deliberately
differs, the docstring says so and the test asserts the project's behaviour.

Not ported: queue modes (the project always drains one at a time), ``before_agent_start``,
resources and skills, ``waitForIdle``, ``settled`` and ``queue_update`` events, tools/resources
update events, auth-header merging (credentials stay inside the provider), patch deletion
semantics (a ``before_provider_request`` handler mutates or replaces the options).
"""

from __future__ import annotations

import asyncio
import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.events import (
    BeforeProviderRequestEvent,
    ContextEvent,
    ProviderRequestResult,
    ToolResultEvent,
)
from aw_action.agent.session import AgentSession
from aw_action.agent.tools import ToolContext
from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    Model,
    ProviderRequest,
    StreamOptions,
    TextContent,
    ToolResultMessage,
)
from aw_action.extensions.api import ExtensionAPI, ExtensionContext, HostServices
from aw_action.extensions.registry import Registry
from aw_action.extensions.runner import ExtensionRunner
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.sinks.jsonl import JsonlSink
from tests.agent.support import MODEL, Gate, Recorder, ScriptedProvider, call, reply, session, settle, tool, user_texts


def count_users(request: ProviderRequest) -> int:
    return len(user_texts(request.messages))


async def test_steering_drains_one_message_per_turn(tmp_path: Path) -> None:
    """agent-harness: "drains one queued steering message at a time and emits queue updates"."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("first"), reply("second"), reply("third"))
    s = session(tmp_path, provider, hooks)
    queued: list[bool] = []

    def queue_two(event: Any) -> None:
        if isinstance(event.message, AssistantMessage) and not queued:
            queued.append(True)
            s.steer("one")
            s.steer("two")

    hooks.on("message_start", queue_two)
    await s.prompt("hello")
    assert [count_users(r) for r in provider.requests] == [1, 2, 3]


async def test_steer_does_not_interrupt_the_request_in_flight(tmp_path: Path) -> None:
    """agent-harness: "steer() does not interrupt the in-flight LLM call"."""
    release = Gate()

    async def held(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        await release.wait()
        return reply("first")

    provider = ScriptedProvider(held, reply("second"))
    s = session(tmp_path, provider)
    task = asyncio.create_task(s.prompt("hello"))
    await settle(lambda: len(provider.requests) == 1)
    s.steer("interrupting")
    assert len(provider.requests) == 1 and not s.signal.aborted and s.queued["steer"] == ["interrupting"]
    release.release()
    await task
    assert [count_users(r) for r in provider.requests] == [1, 2]
    assert s.queued["steer"] == []


async def test_abort_clears_steer_and_follow_up_but_keeps_next_turn(tmp_path: Path) -> None:
    """agent-harness: "abort clears steer and follow-up queues but preserves next-turn messages".
    The next prompt runs (issue 10: abort is not permanent) and receives the next-turn message.
    The project discards the aborted, unfinished turn (Pi keeps the aborted assistant message);
    the second request therefore holds the user messages only."""
    release = Gate()
    signals: list[AbortSignal] = []

    async def held(request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        signals.append(abort)
        await release.wait()
        return reply("aborted-ish")

    provider = ScriptedProvider(held, reply("second"))
    s = session(tmp_path, provider)
    first = asyncio.create_task(s.prompt("first"))
    await settle(lambda: len(provider.requests) == 1)
    s.steer("steer")
    s.follow_up("follow")
    s.next_turn("next")
    s.abort()
    assert signals[0].aborted
    release.release()
    assert (await first).error == "aborted"
    assert s.queued == {"steer": [], "follow_up": [], "next_turn": ["next"]}
    end = await s.prompt("second")
    assert end.error is None
    assert user_texts(provider.requests[1].messages) == ["first", "next", "second"]
    assert [m.role for m in provider.requests[1].messages] == ["user", "user", "user"]


async def test_follow_ups_drain_one_at_a_time_when_the_agent_would_stop(tmp_path: Path) -> None:
    """agent-harness: "drains follow-up messages one at a time after the agent would otherwise stop"."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("first"), reply("second"), reply("third"))
    s = session(tmp_path, provider, hooks)
    queued: list[bool] = []

    def queue_two(event: Any) -> None:
        if isinstance(event.message, AssistantMessage) and not queued:
            queued.append(True)
            s.follow_up("one")
            s.follow_up("two")

    hooks.on("message_start", queue_two)
    await s.prompt("hello")
    assert [count_users(r) for r in provider.requests] == [1, 2, 3]


def _runner(tmp_path: Path, session_: AgentSession, *setups: tuple[str, bool, Any]) -> tuple[ExtensionRunner, RunState]:
    """An ``ExtensionRunner`` with the given ``(name, builtin, setup)`` extensions, bound."""
    state = RunState.for_model(MODEL.ref)
    box: list[ExtensionRunner] = []
    services = HostServices(
        config=RunConfig.model_validate({"engine": {"model": "faux/scripted"}}),
        model=MODEL,
        state=state,
        env={},
        output_dir=tmp_path,
        workspace=tmp_path,
        registry=Registry(),
        post=lambda e: box[0].post(e),
        redactor=Redactor([]),
        jsonl=JsonlSink(Redactor([]), io.StringIO()),
        config_dir=tmp_path,
    )
    runner = ExtensionRunner(services)
    box.append(runner)
    for name, builtin, setup in setups:
        setup(ExtensionAPI(name, builtin, services))
    session_.hooks = runner
    runner.bind(session_)
    return runner, state


async def test_a_raising_context_hook_is_isolated_as_a_warning(tmp_path: Path) -> None:
    """agent-harness: "settles thrown hook failures with persisted assistant error messages".
    The project deliberately differs (spec §11.2.3, extension crash isolation): a user
    extension's raising ``context`` handler becomes a ``warning`` record and the request goes
    out with the unchanged context, so the run completes; the next prompt works too."""

    def setup(api: ExtensionAPI) -> None:
        def explode(event: ContextEvent, ctx: ExtensionContext) -> None:
            raise RuntimeError("context exploded")

        api.on("context", explode)

    provider = ScriptedProvider(reply("ok"), reply("after failure"))
    s = session(tmp_path, provider)
    _, state = _runner(tmp_path, s, ("user-ext", False, setup))
    end = await s.prompt("hello")
    assert end.error is None
    assert [m.role for m in s.messages] == ["user", "assistant"]
    assert any("context exploded" in w for w in state.journal.warnings)
    assert (await s.prompt("after failure")).error is None


async def test_hooks_that_raise_end_the_run_with_an_error_message(tmp_path: Path) -> None:
    """agent-harness: "settles thrown hook failures with persisted assistant error messages",
    for a ``SessionHooks`` that breaks its no-raise contract (the core's own rule, as Pi's): the
    run ends with a persisted assistant error, ``agent_end``, and the session is usable again."""
    hooks = Recorder()

    def explode(messages: list[Any]) -> list[Any]:
        raise RuntimeError("context exploded")

    hooks.context_fn = explode
    provider = ScriptedProvider(reply("after failure"))
    s = session(tmp_path, provider, hooks)
    end = await s.prompt("hello")
    assert end.error == "RuntimeError: context exploded"
    assert [m.role for m in s.messages] == ["user", "assistant"]
    last = s.messages[1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "error"
    assert hooks.types("turn_end", "agent_end") == ["turn_end", "agent_end"]
    hooks.context_fn = None
    assert (await s.prompt("after failure")).error is None


async def test_model_prompt_and_tools_refresh_at_save_points(tmp_path: Path) -> None:
    """agent-harness: "refreshes model, thinking level, resources, system prompt, and active
    tools at save points" (no thinking level or resources in the project)."""
    hooks = Recorder()
    calc, clock = tool("calculate"), tool("get_current_time")
    provider = ScriptedProvider(reply("", call("calculate", "call-1", value="1 + 1")), reply("done"))
    s = session(tmp_path, provider, hooks, [calc], system_prompt="first prompt")
    second = Model(id="second", provider="mock", api="mock")

    def change(event: Any) -> None:
        s.set_model(second)
        s.set_system_prompt("second prompt")
        s.set_tools([calc, clock], ["get_current_time"])

    hooks.on("tool_execution_start", change)
    await s.prompt("hello")
    captured = [(r.model.id, r.system_prompt, [t.name for t in r.tools]) for r in provider.requests]
    assert captured == [("mock", "first prompt", ["calculate"]), ("second", "second prompt", ["get_current_time"])]


async def test_listener_writes_land_after_the_turns_messages(tmp_path: Path) -> None:
    """agent-harness: "orders pending listener session writes after agent-emitted messages"."""
    hooks = Recorder()
    s = session(tmp_path, ScriptedProvider(reply("ok")), hooks, transcript=True)
    hooks.on(
        "message_end",
        lambda e: (
            s.append_entry("listener", {"text": "listener write"}) if isinstance(e.message, AssistantMessage) else None
        ),
    )
    await s.prompt("hello")
    lines = [json.loads(x) for x in (tmp_path / "session.jsonl").read_text().splitlines()[1:]]
    assert [x["message"]["role"] if x["type"] == "message" else x["type"] for x in lines] == [
        "user",
        "assistant",
        "custom",
    ]


async def test_tool_call_and_tool_result_hooks_see_and_patch_the_call(tmp_path: Path) -> None:
    """agent-harness: "runs tool_call and tool_result hooks through the direct loop" (no
    ``terminate`` in the project, so the run goes on to a final answer)."""
    hooks = Recorder()
    seen: list[tuple[str, str, Any]] = []
    hooks.tool_call_fn = lambda e: seen.append((e.tool_call_id, e.tool_name, e.input["value"]))  # type: ignore[func-returns-value]

    def patch(event: ToolResultEvent) -> ToolResultMessage:
        return event.result.model_copy(update={"content": [TextContent(text="patched result")], "details": {"p": 1}})

    hooks.tool_result_fn = patch
    provider = ScriptedProvider(reply("", call("calculate", "call-1", value="2 + 2")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("calculate")])
    await s.prompt("hello")
    [result] = [m for m in s.messages if isinstance(m, ToolResultMessage)]
    assert seen == [("call-1", "calculate", "2 + 2")]
    assert (result.text, result.details) == ("patched result", {"p": 1})


async def test_duplicate_and_unknown_tool_names_are_rejected(tmp_path: Path) -> None:
    """agent-harness: "validates constructor tool names" and the setter part of "preserves app
    tool types for getters and update events": duplicates in the constructor, ``set_tools`` and
    the active list, and unknown active names, raise; nothing changes then."""
    inspect_tool, search = tool("inspect"), tool("search")
    with pytest.raises(ValueError, match="duplicate tool name"):
        session(tmp_path, ScriptedProvider(), tools=[inspect_tool, tool("inspect")])
    s = session(tmp_path, ScriptedProvider(), tools=[inspect_tool, search])
    s.set_active_tools(["search"])
    with pytest.raises(ValueError, match="unknown tool"):
        s.set_active_tools(["missing"])
    with pytest.raises(ValueError, match="duplicate active tool"):
        s.set_active_tools(["search", "search"])
    with pytest.raises(ValueError, match="duplicate tool name"):
        s.set_tools([inspect_tool, inspect_tool], ["inspect"])
    with pytest.raises(ValueError, match="duplicate active tool"):
        s.set_tools([inspect_tool], ["inspect", "inspect"])
    assert [t.name for t in s.tools] == ["inspect", "search"] and s.active_tool_names == ["search"]
    s.set_tools([search], ["search"])
    assert [t.name for t in s.tools] == ["search"]


async def test_stream_options_are_snapshotted_and_patched_per_request(tmp_path: Path) -> None:
    """agent-harness-stream: "snapshots stream options and merges auth headers before provider
    request hooks" (no auth headers: credentials stay in the provider)."""
    hooks = Recorder()
    seen: list[dict[str, str]] = []

    def patch(event: BeforeProviderRequestEvent) -> ProviderRequestResult:
        seen.append(dict(event.options.headers))
        event.options.headers["x-hook"] = "hook"
        event.options.metadata["hook"] = "true"
        return ProviderRequestResult(options=event.options)

    hooks.request_fn = patch
    provider = ScriptedProvider(reply("ok"))
    s = session(tmp_path, provider, hooks, session_id="session-1")
    s.set_options(StreamOptions(max_tokens=1000, headers={"x-base": "base"}, metadata={"base": "true"}))
    await s.prompt("hello")
    options = provider.requests[0].options
    assert seen == [{"x-base": "base"}]
    assert (options.max_tokens, provider.requests[0].session_id) == (1000, "session-1")
    assert options.headers == {"x-base": "base", "x-hook": "hook"}
    assert options.metadata == {"base": "true", "hook": "true"}
    assert s.snapshot().options.headers == {"x-base": "base"}  # the hook patched one request only


async def test_request_hooks_chain_in_registration_order(tmp_path: Path) -> None:
    """agent-harness-stream: "chains provider request patches and supports deletion semantics"
    (the chaining part; the runner chains ``before_provider_request`` handlers)."""
    seen: list[dict[str, str]] = []

    def first(api: ExtensionAPI) -> None:
        def handler(event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> ProviderRequestResult:
            seen.append(dict(event.options.headers))
            options = event.options.copy()
            options.headers["first"] = "1"
            del options.headers["remove"]
            return ProviderRequestResult(options=options)

        api.on("before_provider_request", handler)

    def second(api: ExtensionAPI) -> None:
        def handler(event: BeforeProviderRequestEvent, ctx: ExtensionContext) -> ProviderRequestResult:
            seen.append(dict(event.options.headers))
            options = event.options.copy()
            options.headers["second"] = "2"
            return ProviderRequestResult(options=options)

        api.on("before_provider_request", handler)

    provider = ScriptedProvider(reply("ok"))
    s = session(tmp_path, provider)
    s.set_options(StreamOptions(headers={"keep": "base", "remove": "base"}))
    _runner(tmp_path, s, ("first", False, first), ("second", False, second))
    await s.prompt("hello")
    assert seen == [{"keep": "base", "remove": "base"}, {"keep": "base", "first": "1"}]
    assert provider.requests[0].options.headers == {"keep": "base", "first": "1", "second": "2"}


async def test_new_stream_options_apply_at_the_save_point_only(tmp_path: Path) -> None:
    """agent-harness-stream: "uses updated stream options for save-point snapshots without
    mutating the active request"."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("calculate", "call-1", value="1 + 1")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("calculate")])
    s.set_options(StreamOptions(max_tokens=1000, headers={"turn": "first"}))
    later = StreamOptions(max_tokens=2000, headers={"turn": "second"})
    hooks.on("tool_execution_start", lambda e: s.set_options(later))
    await s.prompt("hello")
    first, second = (r.options for r in provider.requests)
    assert (first.max_tokens, first.headers) == (1000, {"turn": "first"})
    assert (second.max_tokens, second.headers) == (2000, {"turn": "second"})


async def test_payload_hooks_chain(tmp_path: Path) -> None:
    """agent-harness-stream: "chains provider payload hooks"."""
    seen: list[Any] = []

    def stepper(label: str) -> Any:
        def setup(api: ExtensionAPI) -> None:
            def handler(event: Any, ctx: ExtensionContext) -> dict[str, Any]:
                seen.append(event.payload)
                return {**event.payload, "steps": [*event.payload.get("steps", ["provider"]), label]}

            api.on("before_provider_payload", handler)

        return setup

    provider = ScriptedProvider(reply("ok"))
    s = session(tmp_path, provider)
    _runner(tmp_path, s, ("first", False, stepper("first")), ("second", False, stepper("second")))
    await s.prompt("hello")
    assert [p.get("steps") for p in seen] == [None, ["provider", "first"]]
    assert provider.payloads[0]["steps"] == ["provider", "first", "second"]


async def test_a_payload_hook_changes_its_own_copy(tmp_path: Path) -> None:
    """A handler that changes the payload in place changes what this attempt sends, never the
    provider's body: a retry starts again from the original. With no handler the provider's body
    itself goes out (nothing copied)."""

    def setup(api: ExtensionAPI) -> None:
        def handler(event: Any, ctx: ExtensionContext) -> None:
            event.payload["messages"].append({"role": "user", "content": "added"})
            event.payload["system"][0]["text"] = "changed"

        api.on("before_provider_payload", handler)

    body: dict[str, Any] = {"system": [{"type": "text", "text": "sys"}], "messages": [{"role": "user"}]}
    original = copy.deepcopy(body)
    bare, _ = _runner(tmp_path, session(tmp_path, ScriptedProvider()))
    assert await bare.before_provider_payload(body, MODEL) is body

    runner, _ = _runner(tmp_path, session(tmp_path, ScriptedProvider()), ("mutator", False, setup))
    first = await runner.before_provider_payload(body, MODEL)
    second = await runner.before_provider_payload(body, MODEL)
    assert (
        first
        == second
        == {
            "system": [{"type": "text", "text": "changed"}],
            "messages": [{"role": "user"}, {"role": "user", "content": "added"}],
        }
    )
    assert body == original


def test_session_stays_usable_without_a_running_loop() -> None:
    """Construction and an idle abort need no running event loop (the CLI builds sessions early)."""
    s = AgentSession(
        model=MODEL,
        resolve_provider=lambda m: ScriptedProvider(),  # type: ignore[arg-type,return-value]
        tool_context=ToolContext(cwd=Path("."), output_dir=Path(".")),
    )
    s.abort("idle")
    assert s.is_idle and s.abort_reason is None
