"""One assistant message's tool calls: preparation, execution, results (Pi's tool execution).

Per call: ``tool_execution_start`` (before anything else), then preparation: lookup (``Tool X
not found``), the ``prepare_arguments`` shim, JSON-schema validation, the ``tool_call`` hooks
(may block), an abort check; then the tool runs, ``tool_result`` hooks may patch the result, and
``tool_execution_end`` fires. A tool reports failure only by raising; the loop turns the text
into an error result.

Modes (Pi's ``executionMode``): a batch runs in parallel unless one of its called tools declares
``execution_mode = "sequential"``; then the whole batch is sequential.

- parallel: start events and preparation run one call at a time, in order; allowed tools then
  run concurrently; ``tool_execution_end`` fires in completion order; the result messages are
  delivered afterwards in the assistant's order;
- sequential: each call runs start to end (and its result message is delivered) before the next
  call starts.

Once the abort signal is set no further call starts; calls that never started get no result
(repair adds one if the session continues). Result text is cleaned (``ai/text.py``) so that a
tool printing invalid Unicode cannot break a record.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from aw_action.agent.events import (
    ToolCallEvent,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResultEvent,
)
from aw_action.agent.tool_arguments import argument_error
from aw_action.agent.tools import AgentTool, ToolInvocation, ToolResult
from aw_action.ai.text import clean_text, clean_value
from aw_action.ai.types import AbortSignal, AssistantMessage, TextContent, ToolCall, ToolResultMessage
from aw_action.lazy_dataclass import dataclass

if TYPE_CHECKING:
    from aw_action.agent.host import LoopHost, TurnSnapshot

T = TypeVar("T")
ExecutionMode = Literal["parallel", "sequential"]
Deliver = Callable[[ToolResultMessage], Awaitable[None]]

ABORT_GRACE_S = 1.0
"""How long code the harness does not control (a tool, a user extension's handler) may keep
running once the run is aborted before it is cancelled and abandoned."""

LENGTH_TOOL_ERROR = (
    'Tool call "{name}" was not executed: the response hit the output token limit, so its arguments '
    "may be truncated. Re-issue the tool call with complete arguments."
)


async def _exit_as_error(awaitable: Awaitable[T]) -> T:
    try:
        return await awaitable
    except SystemExit as exc:  # raised in a task it would stop the event loop, and the run with it
        raise RuntimeError(f"called exit({exc.code})") from None


async def within_abort_grace(awaitable: Awaitable[T], signal: AbortSignal) -> T:
    """Await ``awaitable``; once ``signal`` is set it gets ``ABORT_GRACE_S`` more, then it is
    cancelled and ``TimeoutError`` is raised. Code that ignores the signal (an HTTP call without
    a timeout, a tool that never checks it) so cannot hold the run past its deadline."""
    task = asyncio.ensure_future(_exit_as_error(awaitable))
    stop = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({task, stop}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            await asyncio.wait({task}, timeout=ABORT_GRACE_S)
        if not task.done():
            task.cancel()
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # nothing left unretrieved
            raise TimeoutError(f"still running {ABORT_GRACE_S:g} s after the run was aborted; abandoned")
        return task.result()
    except asyncio.CancelledError:
        task.cancel()
        raise
    finally:
        stop.cancel()


def execution_mode(tool: AgentTool | None) -> ExecutionMode:
    """A tool's declared mode (``execution_mode`` attribute); parallel when it declares none."""
    return "sequential" if getattr(tool, "execution_mode", "parallel") == "sequential" else "parallel"


def error_result(call: ToolCall, text: str) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id, tool_name=call.name, content=[TextContent(text=clean_text(text))], is_error=True
    )


@dataclass(frozen=True)
class _Ready:
    """A call that passed preparation: the tool and the arguments it runs with."""

    tool: AgentTool
    args: dict[str, Any]


class ToolBatch:
    """Runs the tool calls of one assistant message against one snapshot's tools."""

    def __init__(self, host: LoopHost, snapshot: TurnSnapshot, assistant: AssistantMessage, deliver: Deliver) -> None:
        self.host = host
        self.assistant = assistant
        self.deliver = deliver
        self.tools = {t.name: t for t in snapshot.tools}

    async def run(self) -> list[ToolResultMessage]:
        calls = self.assistant.tool_calls
        if any(execution_mode(self.tools.get(c.name)) == "sequential" for c in calls):
            return await self._sequential(calls)
        return await self._parallel(calls)

    async def _sequential(self, calls: list[ToolCall]) -> list[ToolResultMessage]:
        results: list[ToolResultMessage] = []
        for call in calls:
            if self.host.signal.aborted:
                break
            started = await self._start(call)
            result = await self._finish(call, await self._prepare(call), started)
            await self.deliver(result)
            results.append(result)
        return results

    async def _parallel(self, calls: list[ToolCall]) -> list[ToolResultMessage]:
        prepared: list[tuple[ToolCall, ToolResultMessage | _Ready, float]] = []
        for call in calls:
            if self.host.signal.aborted:
                break
            started = await self._start(call)
            prepared.append((call, await self._prepare(call), started))
        results = list(await asyncio.gather(*(self._finish(c, o, s) for c, o, s in prepared)))
        for result in results:
            await self.deliver(result)
        return results

    async def _start(self, call: ToolCall) -> float:
        await self.host.hooks.emit(ToolExecutionStart(call.id, call.name, call.arguments))
        return time.monotonic()

    async def _prepare(self, call: ToolCall) -> ToolResultMessage | _Ready:
        """Resolve, shim, validate and gate one call: a call to run, or an immediate error result.

        A tool may have ``prepare_arguments(args) -> args`` (Pi's shim for older argument shapes);
        it runs before validation. ``tool_call`` handlers see the same dict the tool gets and may
        change it in place (not re-validated, as in Pi)."""
        if self.assistant.stop_reason == "length":
            return error_result(call, LENGTH_TOOL_ERROR.format(name=call.name))
        tool = self.tools.get(call.name)
        if tool is None:
            unavailable = getattr(self.host.hooks, "why_unavailable", None)  # a workflow step's guard
            why = unavailable(call.name) if callable(unavailable) else None
            return error_result(call, why or f"Tool {call.name} not found")
        if call.raw_arguments is not None:
            return error_result(call, f"Invalid JSON arguments for tool {call.name}: {call.raw_arguments[:200]}")
        shim = getattr(tool, "prepare_arguments", None)
        args: dict[str, Any] = shim(dict(call.arguments)) if callable(shim) else dict(call.arguments)
        error = argument_error(tool.parameters, args)
        if error is not None:
            return error_result(call, f"Validation failed for tool {call.name}: {error}")
        gate = await self.host.hooks.tool_call(ToolCallEvent(call.id, call.name, args))
        if gate.block:
            return error_result(call, gate.reason or "Tool execution was blocked")
        if self.host.signal.aborted:
            return error_result(call, "Operation aborted")
        return _Ready(tool, args)

    async def _finish(self, call: ToolCall, outcome: ToolResultMessage | _Ready, started: float) -> ToolResultMessage:
        if isinstance(outcome, ToolResultMessage):
            result = outcome
        else:
            result = await self._execute(call, outcome)
            result = await self.host.hooks.tool_result(ToolResultEvent(call.id, call.name, outcome.args, result))
        duration = round((time.monotonic() - started) * 1000)
        await self.host.hooks.emit(ToolExecutionEnd(call.id, call.name, result, result.is_error, duration))
        return result

    async def _execute(self, call: ToolCall, ready: _Ready) -> ToolResultMessage:
        host = self.host
        settled = False

        async def on_update(partial: ToolResult) -> None:
            if not settled and host.hooks.listens("tool_execution_update"):
                text = clean_text("".join(c.text for c in partial.content))
                await host.hooks.emit(ToolExecutionUpdate(call.id, call.name, ready.args, text))

        try:
            outcome = await within_abort_grace(
                ready.tool.execute(ToolInvocation(call.id, ready.args, host.signal, on_update, host.tool_context)),
                host.signal,
            )
            content = [TextContent(text=clean_text(c.text)) for c in outcome.content]
            details = clean_value(outcome.details)
            result = ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=content,
                details=details if isinstance(details, dict) else {},
            )
        except Exception as exc:  # a tool reports failure by raising; the model reads the text
            result = error_result(call, str(exc) or type(exc).__name__)
        finally:
            settled = True
        return result
