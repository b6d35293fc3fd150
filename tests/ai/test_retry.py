"""The retry layer, driven through the real SDKs against a local server that fails on purpose."""

from __future__ import annotations

import asyncio

import pytest

from aw_action.ai.catalog import provider_specs
from aw_action.ai.credentials import Credential
from aw_action.ai.errors import Classified, ProviderError
from aw_action.ai.retry import RetryPolicy, RetrySettingError, run_with_retries
from aw_action.ai.sdk_provider import SdkProvider
from aw_action.ai.types import AbortSignal, StreamStart
from tests.ai.conftest import FAST, KEY, RecordingHooks, anthropic_provider, collect, openai_provider, request
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


async def test_an_unreachable_endpoint_gets_the_short_connect_schedule_whatever_the_general_one() -> None:
    policy = RetryPolicy(max_attempts=9, base_delay_s=30.0, jitter_s=0.0, connect_attempts=3, connect_delay_s=0.01)
    url = f"http://127.0.0.1:{free_port()}"
    hooks = RecordingHooks()
    provider = SdkProvider(
        provider_specs()["anthropic"], Credential(KEY, "ANTHROPIC_API_KEY"), base_url=url, retry=policy
    )
    _, msg = await collect(provider, request("sonnet"), hooks)
    assert msg.stop_reason == "error" and msg.error_kind == "unreachable"
    assert [(attempt, status, delay) for attempt, status, delay, _ in hooks.retries] == [
        (1, None, 0.01),
        (2, None, 0.02),
    ]
    assert (msg.error_message or "").startswith(f"cannot reach the anthropic API at {url}: ")


def test_connect_schedule_settings_come_from_the_env_and_must_be_numbers() -> None:
    policy = RetryPolicy.from_env({"AW_RETRY_CONNECT_ATTEMPTS": "5", "AW_RETRY_CONNECT_DELAY_MS": "250"})
    assert (policy.connect_attempts, policy.connect_delay_s) == (5, 0.25)
    with pytest.raises(RetrySettingError, match=r"^AW_RETRY_CONNECT_ATTEMPTS: expected a whole number"):
        RetryPolicy.from_env({"AW_RETRY_CONNECT_ATTEMPTS": "many"})


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
    assert msg.error_kind == "auth"
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
            await super().on_retry(attempt, status, delay_s, error)
            asyncio.get_running_loop().call_later(0.2, abort.abort, "budget")  # lands inside the sleep

    hooks = AbortOnRetry()
    provider = anthropic_provider(server, retry=RetryPolicy(max_attempts=5, base_delay_s=30, jitter_s=0))
    _, msg = await asyncio.wait_for(collect(provider, request("sonnet"), hooks, abort), timeout=15)
    assert [d for _, _, d, _ in hooks.retries] == [30]
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


async def test_socket_drop_after_message_stop_keeps_the_complete_message(server: WireServer) -> None:
    """The terminal event arrived, so the message is complete (and billed): no retry."""
    events = wire.stream_events(text="whole answer")
    server.script(Reply.sse(events, drop_after=len(events)), wire.stream_reply(text="a second, billed request"))
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    assert msg.text == "whole answer" and msg.stop_reason == "stop"
    assert len(server.requests) == 1 and hooks.retries == []


async def test_chat_socket_drop_after_the_usage_chunk_keeps_the_message(server: WireServer) -> None:
    chunks = oai.chat_chunks(text="whole", use=oai.chat_usage(prompt=30, completion=4))
    before_done = chunks[:-1]  # finish_reason and usage arrived; the socket drops before [DONE]
    server.script(Reply.sse(before_done, drop_after=len(before_done)), oai.chat_stream_reply(text="again"))
    _, msg = await collect(openai_provider(server), request("gpt-4o"))
    assert msg.text == "whole" and (msg.usage.input, msg.usage.output) == (30, 4)
    assert len(server.requests) == 1


async def test_server_stalling_mid_stream_hits_the_read_timeout_and_is_retried(server: WireServer) -> None:
    stalled = wire.stream_reply(text="STALLED-never-finished")
    stalled.stall_after, stalled.stall_s = 3, 30.0
    server.script(stalled, wire.stream_reply(text="fresh"))
    hooks = RecordingHooks()
    provider = anthropic_provider(server, timeout_s=0.5)
    _, msg = await asyncio.wait_for(collect(provider, request("sonnet"), hooks), timeout=20)
    assert msg.text == "fresh" and len(server.requests) == 2
    assert hooks.retries[0][1] is None and "timeout" in hooks.retries[0][3].lower()


@pytest.mark.parametrize(
    ("status", "kind", "text"),
    [
        (400, "invalid_request_error", "messages.0.content: field required"),
        (401, "authentication_error", "invalid x-api-key"),
        (403, "permission_error", "Your API key does not have permission to use the specified resource."),
        (404, "not_found_error", "model: claude-nope"),
    ],
)
async def test_client_errors_fail_at_once_without_a_retry(
    server: WireServer, status: int, kind: str, text: str
) -> None:
    server.default = wire.error_reply(status, kind, text)
    hooks = RecordingHooks()
    _, msg = await collect(anthropic_provider(server), request("sonnet"), hooks)
    expected = "auth" if status in (401, 403) else "fatal"
    assert msg.stop_reason == "error" and msg.error_kind == expected and text in (msg.error_message or "")
    assert len(server.requests) == 1 and hooks.retries == []


async def test_unparseable_retry_after_falls_back_to_backoff(server: WireServer) -> None:
    server.script(oai.error_reply(503, "Service Unavailable", headers={"retry-after": "soon"}), oai.chat_stream_reply())
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)
    assert msg.error_message is None and len(server.requests) == 2
    assert [(s, d) for _, s, d, _ in hooks.retries] == [(503, FAST.base_delay_s)]


async def test_responses_server_error_event_is_retried(server: WireServer) -> None:
    failed = (
        'event: response.failed\ndata: {"type": "response.failed", "response": {"id": "r", "object": "response", '
        '"created_at": 1, "status": "failed", "model": "gpt-5", "output": [], "error": {"code": "server_error", '
        '"message": "The server had an error while processing your request."}, "tools": [], '
        '"parallel_tool_calls": true, "tool_choice": "auto"}}'
    )
    server.script(Reply.sse([failed]), oai.responses_stream_reply(text="recovered"))
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-5"), hooks)
    assert msg.text == "recovered" and len(server.requests) == 2 and len(hooks.retries) == 1


async def test_chat_error_object_mid_stream_is_retried(server: WireServer) -> None:
    error = (
        'data: {"error": {"message": "The server had an error while processing your request.", '
        '"type": "server_error", "param": null, "code": null}}'
    )
    server.script(Reply.sse([*oai.chat_chunks(text="half")[:2], error]), oai.chat_stream_reply(text="recovered"))
    hooks = RecordingHooks()
    _, msg = await collect(openai_provider(server), request("gpt-4o"), hooks)
    assert msg.text == "recovered" and len(server.requests) == 2 and "server_error" in hooks.retries[0][3]


async def test_backoff_doubles_from_the_base_up_to_the_cap_with_bounded_jitter() -> None:
    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise ProviderError(Classified("transient", "overloaded", 529))

    reports: list[tuple[int, float]] = []

    async def report(attempt: int, status: int | None, delay_s: float, error: str) -> None:
        reports.append((attempt, delay_s))

    exact = RetryPolicy(max_attempts=6, base_delay_s=0.001, max_delay_s=0.006, jitter_s=0.0)
    with pytest.raises(ProviderError):
        await run_with_retries(failing, exact, report, AbortSignal())
    assert calls == 6
    assert reports == [(1, 0.001), (2, 0.002), (3, 0.004), (4, 0.006), (5, 0.006)]

    reports.clear()
    jittered = RetryPolicy(max_attempts=4, base_delay_s=0.001, max_delay_s=0.0045, jitter_s=0.002)
    with pytest.raises(ProviderError):
        await run_with_retries(failing, jittered, report, AbortSignal())
    for (attempt, delay), floor in zip(reports, (0.001, 0.002, 0.004), strict=True):
        assert floor <= delay <= min(floor + 0.002, 0.0045), (attempt, delay)
