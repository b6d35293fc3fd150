"""Seed 001's runtime setters: ``set_model``, ``set_system_prompt`` and ``set_options`` change the
latest config at any time and take effect at the next save point, never for a request in flight
(Pi's ``setModel``, ``prepareNextTurn``; agent-harness: "refreshes model, thinking level,
resources, system prompt, and active tools at save points"). A switch is recorded (transcript,
``model_change`` record) and the previous model's reasoning is not sent to the new one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.events import HarnessEvent
from aw_action.agent.session import AgentSession, ModelUnavailableError
from aw_action.agent.tools import ToolContext
from aw_action.ai.types import AssistantMessage, Model, StreamOptions, TextContent, ThinkingContent
from tests.agent.support import MODEL, Recorder, ScriptedProvider, call, reply, session, tool

CHEAP = Model(id="cheap", provider="mock", api="mock", context_window=8_000, max_output_tokens=1_000)


def thinking_reply(*calls: Any) -> AssistantMessage:
    """A reply with a signed reasoning block, as Anthropic's API returns one."""
    message = reply("", *calls)
    message.content.insert(0, ThinkingContent(thinking="let me think", signature="sig-of-the-first-model"))
    message.model, message.api = MODEL.id, MODEL.api
    return message


def transcript_entries(tmp_path: Path, kind: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in (tmp_path / "session.jsonl").read_text().splitlines()]
    return [line for line in lines if line.get("type") == kind]


async def test_a_switch_from_a_turn_end_listener_applies_to_the_next_request(tmp_path: Path) -> None:
    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("echo", "c1", value="x")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("echo")], transcript=True)
    hooks.on("turn_end", lambda e: s.set_model(CHEAP))
    await s.prompt("go")
    assert [r.model for r in provider.requests] == [MODEL, CHEAP]
    [change] = [e for e in hooks.of("harness") if e.name == "model_change"]
    assert change.fields == {"from": "mock/mock", "to": "mock/cheap", "reasoning_dropped": 0}
    [entry] = transcript_entries(tmp_path, "model_change")
    assert (entry["provider"], entry["modelId"], entry["previous"]) == ("mock", "cheap", "mock/mock")
    order = [e.type if not isinstance(e, HarnessEvent) else e.name for e in hooks.events]
    assert order.index("model_change") > order.index("turn_end"), "recorded at the save point after the turn"


async def test_a_switch_mid_request_never_changes_the_request_in_flight(tmp_path: Path) -> None:
    """Set while the first request streams and while its tool runs: that request and its tool
    batch keep the old model; the next request uses the new one."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("thinking aloud", call("echo", "c1", value="x")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("echo")])
    seen: list[str] = []

    def switch(event: Any) -> None:
        s.set_model(CHEAP)
        seen.append(s.model.id)  # the getter returns the latest config at once

    hooks.on("message_update", switch)
    await s.prompt("go")
    assert seen and set(seen) == {"cheap"}
    assert [r.model.id for r in provider.requests] == ["mock", "cheap"]


async def test_a_switch_while_idle_applies_to_the_next_prompt(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply("one"), reply("two"))
    s = session(tmp_path, provider, transcript=True)
    await s.prompt("first")
    s.set_model(CHEAP)
    await s.prompt("second")
    assert [r.model.id for r in provider.requests] == ["mock", "cheap"]
    assert len(transcript_entries(tmp_path, "model_change")) == 1


async def test_the_previous_models_reasoning_is_not_sent_to_the_new_one(tmp_path: Path) -> None:
    hooks = Recorder()
    provider = ScriptedProvider(thinking_reply(call("echo", "c1", value="x")), reply("done"))
    s = session(tmp_path, provider, hooks, [tool("echo")], transcript=True)
    hooks.on("turn_end", lambda e: s.set_model(CHEAP))
    await s.prompt("go")
    sent = provider.requests[1].messages
    assistant = [m for m in sent if isinstance(m, AssistantMessage)]
    assert assistant and not any(isinstance(c, ThinkingContent) for m in assistant for c in m.content)
    assert "sig-of-the-first-model" not in json.dumps([m.model_dump(mode="json") for m in sent])
    assert [c.name for c in assistant[0].tool_calls] == ["echo"], "the rest of the message is kept"
    [change] = [e for e in hooks.of("harness") if e.name == "model_change"]
    assert change.fields["reasoning_dropped"] == 1
    on_disk = transcript_entries(tmp_path, "message")
    assert "sig-of-the-first-model" in json.dumps(on_disk), "the transcript keeps what the model said"


async def test_without_a_switch_the_reasoning_is_kept(tmp_path: Path) -> None:
    provider = ScriptedProvider(thinking_reply(call("echo", "c1", value="x")), reply("done"))
    s = session(tmp_path, provider, tools=[tool("echo")])
    await s.prompt("go")
    [first] = [m for m in provider.requests[1].messages if isinstance(m, AssistantMessage)]
    assert isinstance(first.content[0], ThinkingContent) and first.content[0].signature == "sig-of-the-first-model"


async def test_a_model_the_run_cannot_reach_is_refused_and_nothing_changes(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply("", call("echo", "c1", value="x")), reply("done"))
    hooks = Recorder()

    def resolve(model: Model) -> ScriptedProvider:
        if model.provider != "mock":
            raise ModelUnavailableError(f"no credentials for model {model.ref}: set NOPE_API_KEY")
        return provider

    s = AgentSession(
        model=MODEL,
        resolve_provider=resolve,  # type: ignore[arg-type]
        tools=[tool("echo")],
        hooks=hooks,
        tool_context=ToolContext(cwd=tmp_path, output_dir=tmp_path),
    )
    refused: list[str] = []

    def try_switch(event: Any) -> None:
        with pytest.raises(ModelUnavailableError) as caught:
            s.set_model(Model(id="elsewhere", provider="nope", api="mock"))
        refused.append(str(caught.value))

    hooks.on("turn_end", try_switch)
    await s.prompt("go")
    assert refused and "NOPE_API_KEY" in refused[0]
    assert s.model == MODEL and [r.model for r in provider.requests] == [MODEL, MODEL]
    assert not [e for e in hooks.of("harness") if e.name == "model_change"]


async def test_system_prompt_and_options_apply_at_the_save_point_only(tmp_path: Path) -> None:
    """agent-harness-stream: "uses updated stream options for save-point snapshots without
    mutating the active request"; agent: setters during a turn apply at the next request."""
    hooks = Recorder()
    provider = ScriptedProvider(reply("", call("echo", "c1", value="x")), reply("done"))
    first = StreamOptions(max_tokens=1000, headers={"turn": "first"})
    s = session(tmp_path, provider, hooks, [tool("echo")], system_prompt="A", options=first, transcript=True)
    later = StreamOptions(max_tokens=2000, headers={"turn": "second"})

    def change(event: Any) -> None:
        s.set_system_prompt("B")
        s.set_options(later)
        later.headers["turn"] = "changed after set_options"  # the session keeps its own copy

    hooks.on("tool_execution_start", change)
    await s.prompt("go")
    one, two = provider.requests
    assert (one.system_prompt, one.options.max_tokens, one.options.headers) == ("A", 1000, {"turn": "first"})
    assert (two.system_prompt, two.options.max_tokens, two.options.headers) == ("B", 2000, {"turn": "second"})
    assert s.system_prompt == "B" and s.options.max_tokens == 2000
    [entry] = transcript_entries(tmp_path, "config_change")
    assert entry["changed"] == ["system_prompt", "options"]


async def test_a_text_only_model_change_keeps_every_text_block(tmp_path: Path) -> None:
    provider = ScriptedProvider(reply("first answer"), reply("second answer"))
    s = session(tmp_path, provider)
    await s.prompt("one")
    s.set_model(CHEAP)
    await s.prompt("two")
    [kept] = [m for m in provider.requests[1].messages if isinstance(m, AssistantMessage)]
    assert kept.content == [TextContent(text="first answer")]
