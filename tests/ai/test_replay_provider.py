"""The replay provider: recorded replies played back in order, exactly; a request the recording
cannot answer ends in a fatal error that says why; with a live provider, the rest goes live."""

from __future__ import annotations

from aw_action.ai.catalog import resolve_model
from aw_action.ai.replay import Live, RecordedReply, ReplayProvider
from aw_action.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from tests.ai.conftest import RecordingHooks, anthropic_provider, collect, request
from tests.servers import anthropic as wire
from tests.servers.wire import WireServer


def reply(text: str, turn: int = 1, purpose: str = "agent", **fields: object) -> RecordedReply:
    fields = {"stop_reason": "toolUse", **fields}
    message = AssistantMessage(
        content=[
            ThinkingContent(thinking="hmm", signature="sig-123"),
            TextContent(text=text),
            ToolCall(id=f"toolu_{turn}", name="bash", arguments={"command": "ls"}),
        ],
        provider="anthropic",
        model="claude-sonnet-4-6",
        api="anthropic-messages",
        usage=Usage(input=100, output=20),
        cost_usd=0.0012,
        request_id=f"req_{turn}",
        **fields,  # type: ignore[arg-type]
    )
    return RecordedReply(purpose, turn, message)


async def test_replies_are_played_in_order_exactly_with_no_request() -> None:
    provider = ReplayProvider([reply("first", 1), reply("second", 2)])
    hooks = RecordingHooks()
    _, one = await collect(provider, request("claude-sonnet-4.6"), hooks)  # type: ignore[arg-type]
    _, two = await collect(provider, request("claude-sonnet-4.6"), hooks)  # type: ignore[arg-type]
    assert [one.text, two.text] == ["first", "second"]
    assert one.content[0] == ThinkingContent(thinking="hmm", signature="sig-123")
    assert [c.id for c in one.tool_calls] == ["toolu_1"] and one.usage.input == 100 and one.cost_usd == 0.0012
    assert one.request_id == "req_1" and provider.played == 2 and provider.remaining == 0
    assert [p["replay"] for p in hooks.payloads] == [1, 2] and provider.problem is None


async def test_a_request_past_the_recording_fails_saying_so() -> None:
    provider = ReplayProvider([reply("only")])
    await collect(provider, request("claude-sonnet-4.6"))  # type: ignore[arg-type]
    _, failed = await collect(provider, request("claude-sonnet-4.6"))  # type: ignore[arg-type]
    assert failed.stop_reason == "error" and failed.error_kind == "fatal"
    assert provider.problem == "the recording has no reply for request 2: it holds 1"


async def test_a_request_of_another_kind_than_recorded_fails_saying_so() -> None:
    provider = ReplayProvider([reply("summary please", purpose="compaction")])
    _, failed = await collect(provider, request("claude-sonnet-4.6"))  # type: ignore[arg-type]
    assert failed.stop_reason == "error" and provider.played == 0
    assert provider.problem == "request 1 is a agent request; the recording answered a compaction one"


async def test_a_recorded_error_reply_ends_as_an_error() -> None:
    failed = reply("", stop_reason="error", error_message="overloaded", error_kind="transient")
    _, message = await collect(ReplayProvider([failed]), request("claude-sonnet-4.6"))  # type: ignore[arg-type]
    assert message.stop_reason == "error" and message.error_message == "overloaded"


async def test_adapt_rewrites_each_reply_before_it_is_played() -> None:
    def moved(message: AssistantMessage) -> AssistantMessage:
        message.content = [TextContent(text="adapted")]
        return message

    _, message = await collect(ReplayProvider([reply("x")], adapt=moved), request("claude-sonnet-4.6"))  # type: ignore[arg-type]
    assert message.text == "adapted"


async def test_once_the_replies_run_out_the_live_provider_answers_as_its_model() -> None:
    with WireServer() as server:
        server.script(wire.stream_reply(text="live answer"))
        live = Live(anthropic_provider(server), resolve_model("claude-sonnet-4.6"))
        provider = ReplayProvider([reply("recorded")], then=live)
        replay_request = request("claude-sonnet-4.6")
        replay_request.model = resolve_model("faux/scripted")
        _, first = await collect(provider, replay_request)  # type: ignore[arg-type]
        _, second = await collect(provider, replay_request)  # type: ignore[arg-type]
        assert [first.text, second.text] == ["recorded", "live answer"]
        [sent] = server.requests
        assert sent.json["model"] == "claude-sonnet-4-6" and provider.live_requests == 1
