"""Helpers for provider tests: a local wire server, recording hooks, request builders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from aw_action.ai.catalog import provider_specs, resolve_model
from aw_action.ai.credentials import Credential
from aw_action.ai.retry import RetryPolicy
from aw_action.ai.sdk_provider import SdkProvider
from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    AssistantStreamEvent,
    ProviderRequest,
    StreamDone,
    StreamError,
    StreamOptions,
    ToolSpec,
    UserMessage,
)
from tests.servers.wire import WireServer

KEY = "sk-test-SECRET-0123456789abcdef"
FAST = RetryPolicy(max_attempts=4, base_delay_s=0.01, max_delay_s=2.0, jitter_s=0.0)
BASH = ToolSpec(
    "bash",
    "Run a shell command",
    {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)


@dataclass
class RecordingHooks:
    """ProviderHooks that record every call; ``replace`` may rewrite the payload."""

    replace: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    payloads: list[dict[str, Any]] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    responses: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    retries: list[tuple[int, int | None, float, str]] = field(default_factory=list)

    async def on_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.payloads.append(payload)
        out = self.replace(payload) if self.replace else payload
        self.sent.append(out)
        return out

    async def on_response(self, status: int, headers: dict[str, str]) -> None:
        self.responses.append((status, headers))

    async def on_retry(self, attempt: int, status: int | None, delay_s: float, error: str) -> None:
        self.retries.append((attempt, status, delay_s, error))


def request(
    model: str,
    messages: list[Any] | None = None,
    tools: list[ToolSpec] | None = None,
    system: str = "You are a test.",
    purpose: str = "agent",
    **options: Any,
) -> ProviderRequest:
    return ProviderRequest(
        model=resolve_model(model),
        system_prompt=system,
        messages=messages if messages is not None else [UserMessage.of("hi")],
        tools=[BASH] if tools is None else tools,
        options=StreamOptions(**options),
        session_id="sess-1",
        purpose=purpose,
    )


async def collect(
    provider: SdkProvider, req: ProviderRequest, hooks: RecordingHooks | None = None, abort: AbortSignal | None = None
) -> tuple[list[AssistantStreamEvent], AssistantMessage]:
    events = [e async for e in provider.stream(req, hooks or RecordingHooks(), abort or AbortSignal())]
    assert isinstance(events[-1], StreamDone | StreamError), events[-1]
    assert sum(isinstance(e, StreamDone | StreamError) for e in events) == 1
    return events, events[-1].message


def anthropic_provider(server: WireServer, **kw: Any) -> SdkProvider:
    kw.setdefault("retry", FAST)
    return SdkProvider(provider_specs()["anthropic"], Credential(KEY, "ANTHROPIC_API_KEY"), base_url=server.url, **kw)


def openai_provider(server: WireServer, name: str = "openai", **kw: Any) -> SdkProvider:
    """A provider of the openai transport (``name``: ``openai``, ``copilot``, ``github``)."""
    kw.setdefault("retry", FAST)
    return SdkProvider(provider_specs()[name], Credential(KEY, "OPENAI_API_KEY"), base_url=server.url + "/v1", **kw)


@pytest.fixture
def server() -> Iterator[WireServer]:
    with WireServer() as s:
        yield s
