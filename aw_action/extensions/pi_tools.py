"""Extension tools in Pi's shape, adapted once, when they are registered.

Pi's extension API (seeds 000/001) gives a tool ``execute(tool_call_id, args, signal, on_update,
ctx)``; inside the harness a call travels as one ``ToolInvocation`` (``agent/tools.py``). The
extension API (``ExtensionAPI.register_tool``) hands every tool to ``as_agent_tool``, which wraps
one written to Pi's five arguments so that the loop's call reaches it with those five arguments,
and the result it returns reaches the model unchanged. A tool already written to the harness's
one-argument ``execute(call)`` (a built-in's) is registered as it is.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from aw_action.agent.tools import AgentTool, ToolContext, ToolInvocation, ToolResult, UpdateCallback
from aw_action.ai.types import AbortSignal
from aw_action.lazy_dataclass import dataclass

PiExecute = Callable[[str, dict[str, Any], AbortSignal, UpdateCallback, ToolContext], Awaitable[ToolResult]]
"""Pi's ``execute(tool_call_id, args, signal, on_update, ctx)``."""
PI_ARGUMENTS = 5


@dataclass
class FunctionTool:
    """An ``AgentTool`` made from a plain async function in Pi's shape; what
    ``api.register_tool(name=..., execute=...)`` builds."""

    name: str
    description: str
    parameters: dict[str, Any]
    fn: PiExecute
    execution_mode: Literal["parallel", "sequential"] = "parallel"

    async def execute(self, call: ToolInvocation) -> ToolResult:
        return await self.fn(call.id, call.args, call.signal, call.on_update, call.ctx)


class PiTool:
    """A tool object whose ``execute`` takes Pi's five arguments, as an ``AgentTool``. Every other
    attribute (``prepare_arguments``, ``execution_mode``, a description that changes) is the
    tool's own, read through."""

    def __init__(self, tool: Any) -> None:
        self.tool = tool

    @property
    def name(self) -> str:
        return str(self.tool.name)

    @property
    def description(self) -> str:
        return str(self.tool.description)

    @property
    def parameters(self) -> dict[str, Any]:
        parameters: dict[str, Any] = self.tool.parameters
        return parameters

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tool, name)

    async def execute(self, call: ToolInvocation) -> ToolResult:
        result: ToolResult = await self.tool.execute(call.id, call.args, call.signal, call.on_update, call.ctx)
        return result


def positional_arity(fn: Callable[..., Any]) -> int | None:
    """How many positional arguments ``fn`` takes (``self`` of a bound method left out); None
    when it takes any number (``*args``) or its signature cannot be read."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return None
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return sum(1 for p in parameters if p.kind in positional)


def as_agent_tool(tool: Any) -> AgentTool:
    """``tool`` as the loop calls it: wrapped when its ``execute`` takes Pi's five arguments (or
    any number), as it is when it takes the one ``ToolInvocation``. ``TypeError`` for a tool
    without ``execute`` or one that takes neither."""
    execute = getattr(tool, "execute", None)
    if not callable(execute):
        raise TypeError(f"tool {getattr(tool, 'name', tool)!r} has no execute()")
    arity = positional_arity(execute)
    if arity == 1:
        native: AgentTool = tool
        return native
    if arity is None or arity == PI_ARGUMENTS:
        return PiTool(tool)
    raise TypeError(
        f"tool {getattr(tool, 'name', tool)!r}: execute() takes {arity} arguments; "
        "Pi's signature is execute(tool_call_id, args, signal, on_update, ctx)"
    )
