"""Provider-neutral messages, usage and the provider contract.

Everything above the ai layer speaks these types; each provider module translates them to and
from its SDK's wire format. Messages are pydantic models because they cross boundaries: they are
persisted in the transcript, handed to extensions, and replayed to providers.

Usage contract (one normalisation for every provider):
- ``input``: prompt tokens that were neither read from nor written to a cache;
- ``cache_read`` / ``cache_write``: prompt tokens served from / written to a prompt cache;
- ``output``: generated tokens *excluding* reasoning tokens the provider reports separately;
- ``reasoning``: reasoning tokens reported separately (0 when a provider folds them into output).
So ``total`` never counts a token twice.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import field
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from aw_action.lazy_dataclass import dataclass

StopReason = Literal["stop", "length", "toolUse", "error", "aborted"]
"""Why an assistant message ended. ``error`` and ``aborted`` carry ``error_message``."""

ErrorKind = Literal["transient", "unreachable", "overflow", "fatal", "auth", "aborted", "budget"]
"""How an error ended a request: retried-and-still-failing (``transient``), an endpoint that
cannot be reached at all (``unreachable``), context overflow, a credential the API refused
(``auth``: HTTP 401/403), a spending limit enforced outside the harness (AWF's proxy:
``budget``), or none of these (``fatal``)."""


def now_ms() -> int:
    """Unix time in milliseconds, the timestamp unit of every message."""
    return int(time.time() * 1000)


class TextContent(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ThinkingContent(BaseModel):
    """A reasoning block. ``signature`` must be replayed verbatim (Anthropic requires it)."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    redacted: bool = False


class ToolCall(BaseModel):
    """A tool call requested by the model.

    ``arguments`` is the parsed JSON object; when the model sent arguments that are not a JSON
    object, ``arguments`` is empty and ``raw_arguments`` keeps the text so repair can see it.
    """

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None


AssistantContent = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]


class Usage(BaseModel):
    """Token usage of one model request, normalised (see the module docstring)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    raw: dict[str, Any] | None = None

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write + self.reasoning

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
            reasoning=self.reasoning + other.reasoning,
        )


class UserMessage(BaseModel):
    """A user-role message. ``source`` says where it came from (prompt, import, steer, ...)."""

    role: Literal["user"] = "user"
    content: list[TextContent]
    timestamp: int = Field(default_factory=now_ms)
    source: str = "prompt"

    @classmethod
    def of(cls, text: str, source: str = "prompt") -> UserMessage:
        return cls(content=[TextContent(text=text)], source=source)

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.content)


class AssistantMessage(BaseModel):
    """One model response. ``cost_usd`` is None when the price is unknown, never a made-up 0."""

    model_config = ConfigDict(protected_namespaces=())

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    provider: str = ""
    model: str = ""
    api: str = ""
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    error_kind: ErrorKind | None = None
    response_id: str | None = None
    request_id: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.content if isinstance(c, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [c for c in self.content if isinstance(c, ToolCall)]


class ToolResultMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)  # built with the first tool's result, after the first request

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[TextContent] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict)
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.content)


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


@dataclass(frozen=True)
class Model:
    """A concrete model a provider can serve: a catalog entry resolved by name."""

    id: str
    provider: str
    api: str
    context_window: int = 128_000
    max_output_tokens: int = 16_384
    reasoning: bool = False
    price_ref: str | None = None
    """Model id to look prices up under, when it differs from ``id``."""
    price_provider: str | None = None
    """Provider to look prices up under, when the model's vendor is not its provider (Copilot)."""

    @property
    def ref(self) -> str:
        return f"{self.provider}/{self.id}"


@dataclass(frozen=True)
class ToolSpec:
    """What a provider needs to advertise a tool: name, description, JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class StreamOptions:
    """Per-request options; ``before_provider_request`` hooks may patch a copy for one request."""

    max_tokens: int | None = None
    temperature: float | None = None
    headers: dict[str, str] = field(default_factory=dict)
    metadata: dict[str, str] = field(default_factory=dict)

    def copy(self) -> StreamOptions:
        return StreamOptions(self.max_tokens, self.temperature, dict(self.headers), dict(self.metadata))


@dataclass
class ProviderRequest:
    """One model call, built from a turn snapshot. Providers must not mutate it."""

    model: Model
    system_prompt: str
    messages: list[UserMessage | AssistantMessage | ToolResultMessage]
    tools: list[ToolSpec]
    options: StreamOptions
    session_id: str = ""
    purpose: str = "agent"
    """``agent`` for the loop's own calls; ``compaction`` / ``summary`` for housekeeping calls."""


class ProviderHooks(Protocol):
    """Callbacks a provider calls during one request (the core's provider hooks).

    Contracts: ``on_payload`` is called once per HTTP attempt with the exact body about to be
    sent and returns the body to send (possibly replaced); it never changes the body it is given
    (the provider sends it again on a retry): a change is made on a copy, which is returned;
    ``on_response`` observes status and
    headers before the body is consumed; ``on_retry`` reports a retry about to sleep.
    """

    async def on_payload(self, payload: dict[str, Any]) -> dict[str, Any]: ...

    async def on_response(self, status: int, headers: dict[str, str]) -> None: ...

    async def on_retry(self, attempt: int, status: int | None, delay_s: float, error: str) -> None: ...


@dataclass
class StreamStart:
    partial: AssistantMessage
    type: Literal["start"] = "start"


@dataclass
class StreamDelta:
    """Incremental content: ``kind`` says which block kind ``index`` points at.

    ``source`` is the partial message so far, or a function that builds it: providers stream
    many deltas and a listener rarely reads the partial, so building it only on demand keeps a
    long answer linear. Read it as ``partial``."""

    kind: Literal["text", "thinking", "toolcall"]
    index: int
    delta: str
    source: AssistantMessage | Callable[[], AssistantMessage]
    type: Literal["delta"] = "delta"

    @property
    def partial(self) -> AssistantMessage:
        if not isinstance(self.source, AssistantMessage):
            self.source = self.source()
        return self.source


@dataclass
class StreamDone:
    message: AssistantMessage
    type: Literal["done"] = "done"


@dataclass
class StreamError:
    """Terminal failure; ``message.stop_reason`` is ``error`` or ``aborted``."""

    message: AssistantMessage
    type: Literal["error"] = "error"


AssistantStreamEvent = StreamStart | StreamDelta | StreamDone | StreamError


class Provider(Protocol):
    """An LLM backend.

    Contract: ``stream`` never raises for request, model or network failures. It yields any
    number of ``StreamStart``/``StreamDelta`` events and ends with exactly one ``StreamDone`` or
    ``StreamError``. Retries happen inside (reported through ``hooks.on_retry``); a response cut
    before completion is discarded, never yielded as done. ``abort`` being set ends the stream
    with ``stop_reason="aborted"``.
    """

    name: str

    def stream(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal
    ) -> AsyncIterator[AssistantStreamEvent]: ...


class AbortSignal:
    """A one-shot cancellation flag that async code can poll or await."""

    def __init__(self) -> None:
        import asyncio

        self._event = asyncio.Event()
        self.reason: str | None = None

    @property
    def aborted(self) -> bool:
        return self._event.is_set()

    def abort(self, reason: str | None = None) -> None:
        if not self._event.is_set():
            self.reason = reason
            self._event.set()

    async def wait(self) -> None:
        await self._event.wait()
