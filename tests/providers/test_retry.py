"""The retry layer, driven through the real SDKs against a local server that fails on purpose."""

from __future__ import annotations

import asyncio

from aw_action.ai.retry import RetryPolicy
from aw_action.ai.types import AbortSignal, StreamStart
from tests.providers.conftest import KEY, RecordingHooks, anthropic_provider, collect, openai_provider, request
from tests.servers import anthropic as wire
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer, free_port


async def test_overloaded_529_then_success(server: WireServer) -> None:
    server.script(wire.overloaded(), wire.stream_reply(text="fine"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "fine" and msg.stop_reason == "stop"
    assert len(server.requests) == 2 and len(hooks.payloads) == 2
    assert [s for s, _ in hooks.responses] == [529, 200]
    assert [(a, s) for a, s, _, _ in hooks.retries] == [(1, 529)]


async def test_429_honours_retry_after(server: WireServer) -> None:
    server.script(
        wire.error_reply(429, "rate_limit_error", "slow down", headers={"retry-after": "1"}),
        oai.error_reply(429, "Rate limit reached", headers={"retry-after-ms": "20"}),
        wire.stream_reply(text="ok"),
    )
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "ok" and len(server.requests) == 3
    assert [(s, d) for _, s, d, _ in hooks.retries] == [(429, 1.0), (429, 0.02)]


async def test_retry_after_beyond_the_cap_is_not_waited_for(server: WireServer) -> None:
    server.script(wire.error_reply(429, "rate_limit_error", "later", headers={"retry-after": "3600"}))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.stop_reason == "error" and msg.error_kind == "transient"
    assert len(server.requests) == 1 and hooks.retries == []


async def test_connection_refused_then_server_comes_up() -> None:
    port = free_port()
    late = WireServer(port=port)
    late.script(wire.stream_reply(text="up now"))

    class StartOnRetry(RecordingHooks):
        async def on_retry(self, attempt: int, status: int | None, delay_s: float, error: str) -> None:
            await super().on_retry(attempt, status, delay_s, error)
            if attempt == 1:
                late.start()

    hooks = StartOnRetry()
    provider = anthropic_provider(late)  # nothing listens on the port yet
    try:
        _, msg = await collect(provider, request("sonnet"), hooks)
    finally:
        late.stop()
    assert msg.text == "up now"
    assert hooks.retries[0][1] is None and "connect" in hooks.retries[0][3].lower()
    assert len(late.requests) == 1


async def test_stream_cut_mid_body_is_discarded_and_retried(server: WireServer) -> None:
    server.script(
        wire.stream_reply(text="PARTIAL-XYZ-never-finished", drop_after=4),
        wire.stream_reply(text="whole answer"),
    )
    hooks = RecordingHooks()
    events, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "whole answer" and len(server.requests) == 2
    assert hooks.retries[0][1] is None
    assert "PARTIAL" not in msg.model_dump_json()
    assert sum(isinstance(e, StreamStart) for e in events) == 2, "the retried attempt restarts the message"


async def test_stream_without_terminal_event_is_retried(server: WireServer) -> None:
    server.script(wire.stream_reply(text="no stop event", terminal=False), wire.stream_reply(text="complete"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "complete" and len(server.requests) == 2
    assert "message_stop" in hooks.retries[0][3]


async def test_error_event_inside_a_200_stream_is_retried(server: WireServer) -> None:
    error = 'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    events = wire.stream_events(text="half")
    server.script(Reply.sse([*events[:3], error]), wire.stream_reply(text="again"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "again" and len(hooks.retries) == 1 and "overloaded" in hooks.retries[0][3]


async def test_responses_stream_cut_is_retried(server: WireServer) -> None:
    server.script(oai.responses_stream_reply(text="cut", drop_after=2), oai.responses_stream_reply(text="whole"))
    _, msg = await collect(openai_provider(server), request("gpt-5"))
    assert msg.text == "whole" and len(server.requests) == 2


async def test_transient_failure_ends_as_transient_after_retries(server: WireServer) -> None:
    server.default = oai.error_reply(503, "Service Unavailable")
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)
    assert msg.stop_reason == "error" and msg.error_kind == "transient"
    assert len(server.requests) == 4 and [a for a, *_ in hooks.retries] == [1, 2, 3]
    assert msg.cost_usd == 0.0


async def test_context_overflow_is_not_retried(server: WireServer) -> None:
    server.script(wire.error_reply(400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.error_kind == "overflow" and msg.stop_reason == "error"
    assert len(server.requests) == 1 and hooks.retries == []


async def test_quota_429_is_fatal(server: WireServer) -> None:
    server.script(oai.error_reply(429, "You exceeded your current quota", code="insufficient_quota"))
    _, msg = await collect(openai_provider(server), request("gpt-4o"))
    assert msg.error_kind == "fatal" and len(server.requests) == 1


async def test_error_text_never_carries_the_key(server: WireServer) -> None:
    server.script(oai.error_reply(401, f"Incorrect API key provided: {KEY}", code="invalid_api_key"))
    _, msg = await collect(openai_provider(server), request("gpt-4o"))
    assert msg.error_kind == "fatal"
    assert msg.error_message is not None and "Incorrect API key" in msg.error_message
    assert KEY not in msg.error_message and KEY not in msg.model_dump_json()


async def test_retry_reports_are_scrubbed(server: WireServer) -> None:
    server.script(wire.error_reply(500, "api_error", f"boom {KEY}"), wire.stream_reply(text="ok"))
    hooks = RecordingHooks()
    await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert KEY not in hooks.retries[0][3] and "***" in hooks.retries[0][3]


async def test_abort_during_retry_sleep_stops_without_another_request(server: WireServer) -> None:
    server.default = wire.overloaded()
    abort = AbortSignal()

    class AbortOnRetry(RecordingHooks):
        async def on_retry(self, attempt: int, status: int | None, delay_s: float, error: str) -> None:
            abort.abort("budget")

    provider = anthropic_provider(server, retry=RetryPolicy(max_attempts=5, base_delay_s=30, jitter_s=0))
    _, msg = await asyncio.wait_for(collect(provider, request("sonnet"), AbortOnRetry(), abort), timeout=20)
    assert msg.stop_reason == "aborted" and msg.error_kind == "aborted"
    assert len(server.requests) == 1


async def test_abort_mid_request_cancels_it(server: WireServer) -> None:
    slow = wire.stream_reply(text="late")
    slow.delay_s = 5
    server.script(slow)
    abort = AbortSignal()
    asyncio.get_running_loop().call_later(0.2, abort.abort, "timeout")
    _, msg = await asyncio.wait_for(collect(anthropic_provider(server), request("sonnet"), abort=abort), timeout=4)
    assert msg.stop_reason == "aborted" and msg.error_message == "timeout"


async def test_abort_before_the_request_starts_sends_nothing(server: WireServer) -> None:
    abort = AbortSignal()
    abort.abort("budget")
    server.script(wire.stream_reply(text="never"))
    _, msg = await asyncio.wait_for(collect(anthropic_provider(server), request("sonnet"), abort=abort), timeout=10)
    assert msg.stop_reason == "aborted" and msg.error_message == "budget"
    assert server.requests == []
