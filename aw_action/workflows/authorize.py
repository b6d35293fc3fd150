"""Per-step tool authorisation: which calls a step may make, decided before any tool runs.

``authorize_tool_call`` is the pure rule for one call; ``StepGuard`` adds the rules that need
the rest of the message (the completion must be alone) and the step's progress (after an
accepted completion nothing else runs). Wire the guard as the *last* ``tool_call`` gate, after
every handler that may rewrite arguments, so the arguments it approves are the ones that run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.names import server_of
from aw_action.mcp.names import tool_name as mcp_tool_name
from aw_action.policy import check_command
from aw_action.workflows.completion import COMPLETION_TOOL, CompleteStepTool, completion_batch_rejections
from aw_action.workflows.models import Step


@dataclass(frozen=True)
class Authorization:
    allowed: bool
    reason: str = ""


ALLOWED = Authorization(True)


def authorize_tool_call(
    step_id: str,
    step: Step,
    tool_name: str,
    args: Mapping[str, Any],
    cwd: str | None = None,
    variables: Mapping[str, str] | None = None,
) -> Authorization:
    """Whether step ``step_id`` may call ``tool_name`` with ``args`` (batch rules aside).
    ``cwd`` and ``variables`` are passed to the bash policy (``policy.check_command``)."""
    if tool_name == COMPLETION_TOOL:
        return ALLOWED
    server = server_of(tool_name)
    if server is not None and tool_name not in step.permissions.tools:
        if mcp_granted(step, tool_name):
            return ALLOWED
        granted = ", ".join(step.permissions.mcp) or "none"
        return Authorization(
            False, f"MCP tool {tool_name!r} is not granted in step {step_id!r} (permissions.mcp: {granted})"
        )
    if tool_name not in step.permissions.tools:
        allowed = ", ".join([*step.permissions.tools, COMPLETION_TOOL])
        return Authorization(False, f"tool {tool_name!r} is not allowed in step {step_id!r} (allowed: {allowed})")
    if tool_name != "bash":
        return ALLOWED
    command = args.get("command")
    if not isinstance(command, str):
        return Authorization(False, "bash call without a command string")
    decision = check_command(step.permissions.bash, command, cwd=cwd, variables=variables)
    if decision.allowed:
        return ALLOWED
    return Authorization(False, f"bash command refused in step {step_id!r}: {decision.reason}")


def mcp_granted(step: Step, tool_name: str) -> bool:
    """Whether one of the step's ``permissions.mcp`` selectors grants the MCP tool ``tool_name``
    (``mcp__<server>__<tool>``, as ``mcp/names.tool_name`` spells it)."""
    server = server_of(tool_name)
    if server is None:
        return False
    for selector in step.permissions.mcp:
        name, _, tool = selector.partition("/")
        if name == server and (not tool or mcp_tool_name(server, tool) == tool_name):
            return True
    return False


def mcp_selector_problems(steps: Mapping[str, Step], servers: Iterable[str]) -> list[str]:
    """Each selector that names a server the run does not configure, as ``step: selector``."""
    known = set(servers)
    return [
        f"step {step_id!r}: permissions.mcp {selector!r} names no configured MCP server"
        + (f" (configured: {', '.join(sorted(known))})" if known else " (mcp-servers is empty)")
        for step_id, step in steps.items()
        for selector in step.permissions.mcp
        if selector.partition("/")[0] not in known
    ]


class StepGuard:
    """Authorises the calls of one running step.

    Feed it each assistant message's tool calls (``observe_batch``) before they run, then ask
    ``authorize`` for each call."""

    def __init__(
        self,
        step_id: str,
        step: Step,
        tool: CompleteStepTool,
        cwd: str | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> None:
        self.step_id = step_id
        self.step = step
        self.tool = tool
        self.cwd = cwd
        self.variables = dict(variables or {})
        self._batch_rejections: dict[str, str] = {}

    def observe_batch(self, calls: Sequence[tuple[str, str]]) -> None:
        """The (id, name) pairs of the assistant message whose calls are about to run."""
        self._batch_rejections = completion_batch_rejections(calls)

    def authorize(self, call_id: str, tool_name: str, args: Mapping[str, Any]) -> Authorization:
        if self.tool.completion is not None:
            return Authorization(False, f"step {self.step_id!r} is complete; end your turn")
        if call_id in self._batch_rejections:
            return Authorization(False, self._batch_rejections[call_id])
        return authorize_tool_call(self.step_id, self.step, tool_name, args, self.cwd, self.variables)
