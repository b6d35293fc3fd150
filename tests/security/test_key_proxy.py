"""The loopback key proxy with the real SDKs against a local wire-format server: the SDK holds
only the client token, the upstream sees the real key, streams pass through, strangers get 403."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import anthropic
import httpx
import openai
import pytest

from aw_action.security.key_proxy import ProxyHandle, start_key_proxy
from tests.servers import anthropic as anthropic_wire
from tests.servers import openai as openai_wire
from tests.servers.wire import WireServer

KEY = "sk-ant-api03-ProxyHeldRealKey0123456789abcdef"


@pytest.fixture
def upstream() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


@pytest.fixture
def proxy(upstream: WireServer) -> Iterator[ProxyHandle]:
    handle = start_key_proxy(upstream.url, KEY)
    yield handle
    handle.stop()


def test_the_anthropic_sdk_streams_through_with_the_placeholder(upstream: WireServer, proxy: ProxyHandle) -> None:
    upstream.script(anthropic_wire.stream_reply(text="hello through the proxy"))
    client = anthropic.Anthropic(api_key=proxy.client_token, base_url=proxy.base_url, max_retries=0)
    with client.messages.stream(
        model="claude-test-model", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        text = "".join(stream.text_stream)
    assert text == "hello through the proxy"
    [request] = upstream.requests
    used = "x-api-key" if "x-api-key" in request.headers else "authorization"
    assert request.headers[used] in (KEY, f"Bearer {KEY}"), "the real key, in the header the SDK uses"
    assert request.path == "/v1/messages"
    assert proxy.client_token not in str(request.headers)


def test_an_openai_style_bearer_key_is_swapped_too(upstream: WireServer) -> None:
    handle = start_key_proxy(upstream.url + "/v1", "sk-proj-RealOpenAIKey0123456789")
    try:
        upstream.script(openai_wire.chat_reply(text="ok"))
        client = openai.OpenAI(api_key=handle.client_token, base_url=handle.base_url, max_retries=0)
        reply = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == "ok"
        [request] = upstream.requests
        assert request.headers["authorization"] == "Bearer sk-proj-RealOpenAIKey0123456789"
        assert request.path == "/v1/chat/completions"
    finally:
        handle.stop()


@pytest.mark.parametrize(
    "headers",
    [{}, {"x-api-key": ""}, {"x-api-key": "sk-ant-guess"}, {"x-api-key": KEY}, {"authorization": f"Bearer {KEY}"}],
)
def test_anyone_without_the_client_token_is_refused_before_the_upstream(
    upstream: WireServer, proxy: ProxyHandle, headers: dict[str, str]
) -> None:
    reply = httpx.post(f"{proxy.base_url}/v1/messages", headers=headers, json={"model": "x"}, timeout=30)
    assert reply.status_code == 403
    assert upstream.requests == []


def test_upstream_errors_pass_through_unchanged(upstream: WireServer, proxy: ProxyHandle) -> None:
    upstream.script(anthropic_wire.error_reply(529, "overloaded_error", "Overloaded"))
    client = anthropic.Anthropic(api_key=proxy.client_token, base_url=proxy.base_url, max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as caught:
        client.messages.create(model="claude-test-model", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 529


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux")
def test_the_key_is_not_on_the_proxy_command_line_nor_in_its_environment(proxy: ProxyHandle) -> None:
    pid = proxy.process.pid
    with open(f"/proc/{pid}/cmdline", "rb") as fh:
        assert KEY.encode() not in fh.read()
    with open(f"/proc/{pid}/environ", "rb") as fh:  # root may read it (CAP_SYS_PTRACE); it holds no key
        assert KEY.encode() not in fh.read()
    assert os.stat(f"/proc/{pid}/environ").st_uid == 0, "non-dumpable: /proc entries belong to root"


def test_the_proxy_ends_when_the_harness_closes_its_stdin(upstream: WireServer) -> None:
    handle = start_key_proxy(upstream.url, KEY)
    assert handle.process.stdin is not None
    handle.process.stdin.close()
    assert handle.process.wait(timeout=30) == 0
