"""Test doubles for the ported Pi agent tests: a provider driven by Python callables (Pi's
``MockAssistantStream`` / faux response factories), a recording ``SessionHooks`` and tools.

A provider step is ``fn(request, abort) -> AssistantMessage`` (sync or async), or an
``AssistantMessage`` to return as is. The provider streams a ``StreamStart``, one
``StreamDelta`` per text block, then ``StreamDone`` (``StreamError`` when the message's stop
reason is ``error``/``aborted``). An async step that is still waiting when the signal is set
ends as ``aborted`` (Pi's faux provider: "Request was aborted").
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from aw_action.agent.events import (
    AgentEvent,
    AnyMessage,
    BeforeProviderRequestEvent,
    ProviderRequestResult,
    ToolCallEvent,
    ToolCallResult,
    ToolResultEvent,
)
from aw_action.agent.hooks import NullHooks
from aw_action.agent.session import AgentSession
from aw_action.agent.tools import AgentTool, ToolContext, ToolResult, UpdateCallback
from aw_action.agent.transcript import Transcript
from aw_action.ai.types import (
    AbortSignal,
    AssistantMessage,
    AssistantStreamEvent,
    Model,
    ProviderHooks,
    ProviderRequest,
    StopReason,
    StreamDelta,
    StreamDone,
    StreamError,
    StreamOptions,
    StreamStart,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from aw_action.extensions.pi_tools import FunctionTool

MODEL = Model(id="mock", provider="mock", api="mock", context_window=8192, max_output_tokens=2048)
Step = AssistantMessage | Callable[[ProviderRequest, AbortSignal], "AssistantMessage | Awaitable[AssistantMessage]"]
Listener = Callable[[AgentEvent], "Awaitable[None] | None"]


def reply(text: str = "", *calls: ToolCall, stop: StopReason | None = None) -> AssistantMessage:
    """An assistant message: optional text, then tool calls (stop reason derived, as Pi's faux)."""
    content: list[Any] = [TextContent(text=text)] if text else []
    content += list(calls)
    return AssistantMessage(content=content, stop_reason=stop or ("toolUse" if calls else "stop"))


def call(name: str, call_id: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=arguments)


def user_texts(messages: list[AnyMessage]) -> list[str]:
    return [m.text for m in messages if isinstance(m, UserMessage)]


class ScriptedProvider:
    """Plays ``steps`` first in, first out; ``requests`` keeps every request it got."""

    name = "mock"

    def __init__(self, *steps: Step) -> None:
        self.steps = list(steps)
        self.requests: list[ProviderRequest] = []
        self.payloads: list[dict[str, Any]] = []

    async def stream(
        self, request: ProviderRequest, hooks: ProviderHooks, abort: AbortSignal
    ) -> AsyncIterator[AssistantStreamEvent]:
        self.requests.append(request)
        self.payloads.append(await hooks.on_payload({"model": request.model.id, "n": len(self.requests)}))
        if not self.steps:
            yield StreamError(AssistantMessage(stop_reason="error", error_message="No more faux responses queued"))
            return
        step = self.steps.pop(0)
        message = await self._run(step, request, abort)
        yield StreamStart(AssistantMessage())
        for i, block in enumerate(message.content):
            if isinstance(block, TextContent):
                yield StreamDelta("text", i, block.text, message.model_copy(deep=True))
        yield StreamError(message) if message.stop_reason in ("error", "aborted") else StreamDone(message)

    @staticmethod
    async def _run(step: Step, request: ProviderRequest, abort: AbortSignal) -> AssistantMessage:
        if isinstance(step, AssistantMessage):
            return step.model_copy(deep=True)
        result = step(request, abort)
        if not inspect.isawaitable(result):
            return result
        task = asyncio.ensure_future(result)
        stop = asyncio.ensure_future(abort.wait())
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        stop.cancel()
        if task.done():
            return task.result()
        task.cancel()
        return AssistantMessage(stop_reason="aborted", error_message="Request was aborted", error_kind="aborted")


class Recorder(NullHooks):
    """A ``SessionHooks`` that records every event, awaits listeners in registration order, and
    lets a test install the hook functions (``context``, ``tool_call``, ...)."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []
        self.listeners: dict[str, list[Listener]] = {}
        self.context_fn: Callable[[list[AnyMessage]], list[AnyMessage]] | None = None
        self.tool_call_fn: Callable[[ToolCallEvent], ToolCallResult | None] | None = None
        self.tool_result_fn: Callable[[ToolResultEvent], ToolResultMessage] | None = None
        self.request_fn: Callable[[BeforeProviderRequestEvent], ProviderRequestResult | None] | None = None

    def on(self, type_: str, listener: Listener) -> None:
        self.listeners.setdefault(type_, []).append(listener)

    async def emit(self, event: AgentEvent) -> None:
        self.events.append(event)
        for listener in [*self.listeners.get(event.type, []), *self.listeners.get("*", [])]:
            result = listener(event)
            if inspect.isawaitable(result):
                await result

    async def context(self, messages: list[AnyMessage]) -> list[AnyMessage]:
        return self.context_fn(list(messages)) if self.context_fn else messages

    async def tool_call(self, event: ToolCallEvent) -> ToolCallResult:
        return (self.tool_call_fn(event) if self.tool_call_fn else None) or ToolCallResult()

    async def tool_result(self, event: ToolResultEvent) -> ToolResultMessage:
        return self.tool_result_fn(event) if self.tool_result_fn else event.result

    async def before_provider_request(self, event: BeforeProviderRequestEvent) -> ProviderRequestResult:
        patched = self.request_fn(event) if self.request_fn else None
        return patched or ProviderRequestResult(options=event.options)

    def types(self, *only: str) -> list[str]:
        return [e.type for e in self.events if not only or e.type in only]

    def of(self, type_: str) -> list[Any]:
        return [e for e in self.events if e.type == type_]


ToolFn = Callable[[dict[str, Any], AbortSignal, UpdateCallback], Awaitable[ToolResult]]


def tool(
    name: str, fn: ToolFn | None = None, mode: Literal["parallel", "sequential"] = "parallel", **schema: Any
) -> FunctionTool:
    """A tool taking ``{value: string}`` (or ``schema``) whose body is ``fn(args, signal, update)``;
    the default body echoes ``value``."""

    async def echo(args: dict[str, Any], signal: AbortSignal, update: UpdateCallback) -> ToolResult:
        return ToolResult.text(f"echoed: {args.get('value')}")

    body = fn or echo

    async def run(
        call_id: str, args: dict[str, Any], signal: AbortSignal, update: UpdateCallback, ctx: ToolContext
    ) -> ToolResult:
        return await body(args, signal, update)

    parameters = schema or {"type": "object", "properties": {"value": {"type": "string"}}, "required": ["value"]}
    return FunctionTool(name, f"{name} tool", parameters, run, execution_mode=mode)


def session(
    tmp_path: Path,
    provider: ScriptedProvider,
    hooks: Recorder | None = None,
    tools: list[AgentTool] | None = None,
    *,
    system_prompt: str = "",
    transcript: bool = False,
    session_id: str | None = None,
    options: StreamOptions | None = None,
) -> AgentSession:
    return AgentSession(
        model=MODEL,
        resolve_provider=lambda m: provider,  # type: ignore[arg-type,return-value]
        tools=tools or [],
        system_prompt=system_prompt,
        hooks=hooks or Recorder(),
        tool_context=ToolContext(cwd=tmp_path, output_dir=tmp_path),
        transcript=Transcript(tmp_path / "session.jsonl", session_id="s1", cwd=str(tmp_path), model="mock/mock")
        if transcript
        else None,
        session_id=session_id,
        options=options,
    )


class Gate:
    """A one-shot barrier (Pi's ``createDeferred``)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def release(self) -> None:
        self._event.set()

    async def wait(self) -> None:
        await self._event.wait()


async def settle(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Yield to the loop until ``predicate()`` holds (a bounded wait, never a timing assertion)."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached")
        await asyncio.sleep(0.001)
