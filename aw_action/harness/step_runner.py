"""Workflow steps as prompts of one assembled run: the ``StepRunner`` over a ``RunContext``.

Every step is one ``RunContext.prompt`` (its own outcome and ``PromptRecord``, source
``workflow:<step>``) of the run's one session, so budgets, steering, repair, compaction and every
record span the whole workflow. For each step the runner

- narrows the session's active tools to the step's permitted tools that exist, plus
  ``workflow_complete_step`` (``set_active_tools``; the session's tools are the run's);
- points the run's one completion tool (registered for the run when the runner is made) at the
  step's ``CompleteStepTool``;
- puts the step's guard behind every other ``tool_call`` gate (``workflows.step_hooks.
  GuardedHooks`` wraps the extension runner), so the arguments it approves are those that run;
- confines the step's tools as its permissions imply (``RunGuards.step_tools``: a read-only
  bash policy runs its commands in the ``read-only`` kernel sandbox; a step granting no
  ``write``/``edit`` has a read-only file helper) and announces it (a ``sandbox`` record).

How a step ends: once the completion tool has recorded an accepted completion, the prompt ends
after that turn (``AgentSession.end_after_turn``): the tool result is persisted, ``turn_end``
and the save point happen, and no further model request is made. This is a clean end, not an
abort: the prompt's outcome is ``completed``, queued steering notices reach the model with the
next step's prompt, and the run's stop stays reserved for cancels, deadlines and budgets.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aw_action.agent.session import AgentSession
from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.harness.context import RunContext
from aw_action.harness.sandbox_setup import step_record
from aw_action.workflows.authorize import mcp_granted
from aw_action.workflows.completion import COMPLETION_TOOL, CompleteStepTool
from aw_action.workflows.driver import StepRequest, StepResult
from aw_action.workflows.step_hooks import GuardedHooks

IDLE_DESCRIPTION = "Finish the current workflow step (no step is running now)."


class RunCompletionTool:
    """``workflow_complete_step`` for the whole run: its name, description and parameters are
    those of the running step's tool; once that tool accepts a completion, the prompt ends
    after the current turn."""

    name = COMPLETION_TOOL
    execution_mode = "sequential"

    def __init__(self, session: AgentSession) -> None:
        self.session = session
        self.step: CompleteStepTool | None = None

    @property
    def description(self) -> str:
        return self.step.description if self.step is not None else IDLE_DESCRIPTION

    @property
    def parameters(self) -> dict[str, Any]:
        if self.step is not None:
            return self.step.parameters
        return {"type": "object", "properties": {}, "additionalProperties": False}

    async def execute(self, call: ToolInvocation) -> ToolResult:
        step = self.step
        if step is None:
            raise ToolError("no workflow step is running")
        result = await step.execute(call)
        if step.completion is not None:
            self.session.end_after_turn()
        return result


class ContextStepRunner:
    """Runs each workflow step as a prompt of ``context``. ``preamble`` (the config's imports)
    goes before the first prompt it sends."""

    def __init__(self, context: RunContext, preamble: str = "") -> None:
        self.context = context
        self.preamble = preamble
        session = context.session
        self.hooks = GuardedHooks(session.hooks)
        session.hooks = self.hooks
        self.tool = RunCompletionTool(session)
        others = [t for t in session.tools if t.name != COMPLETION_TOOL]
        session.set_tools([*others, self.tool], active=[n for n in session.active_tool_names if n != COMPLETION_TOOL])

    @property
    def available(self) -> set[str]:
        """The tools the run has (what ``requires.tools`` is checked against)."""
        return {t.name for t in self.context.session.tools}

    async def run_step(self, request: StepRequest) -> StepResult:
        session = self.context.session
        present = self.available
        granted = [name for name in sorted(present) if mcp_granted(request.guard.step, name)]
        session.set_active_tools([*(name for name in request.tools if name in present), *granted])
        self.tool.step = request.completion_tool
        self.hooks.guard = request.guard
        base = session.tool_context
        guards = self.context.guards
        if guards is not None:
            permissions = request.guard.step.permissions
            sandbox = guards.step_tools(permissions.bash.mode, permissions.tools)
            session.tool_context = replace(base, sandbox=sandbox)
            self.context.runner.post(step_record(request.step_id, sandbox))
        text, self.preamble = (f"{self.preamble}\n\n{request.prompt}" if self.preamble else request.prompt), ""
        source = f"workflow:{request.step_id}" + (":reminder" if request.reminder else "")
        try:
            outcome = await self.context.prompt(text, source=source)
        finally:
            self.hooks.guard = None
            self.tool.step = None
            session.tool_context = base
        if outcome.completed:
            return StepResult("stopped")
        return StepResult("failed", outcome.error or outcome.stop_reason)
