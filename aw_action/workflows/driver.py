"""Drive a workflow run step by step through a ``StepRunner`` (the seam to the agent session).

The driver owns the order: render the current step's prompt, hand the runner the step's tools,
its completion tool and its guard, apply the accepted completion to the state machine, save the
state, repeat until the run is done or paused. The runner owns the session: it narrows the
active tools to ``request.tools``, routes every tool call through ``request.guard`` (as the last
gate), prompts, and reports how the prompt ended. The completion itself is read from
``request.completion_tool`` once the prompt returns.

A prompt that ends without a completion is followed by a reminder (``max_reminders`` times);
then, or when the prompt failed (error, budget, deadline, cancel), the run pauses with kind
``failed`` so a later job can resume it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal, Protocol

from aw_action.lazy_dataclass import dataclass
from aw_action.workflows.authorize import StepGuard
from aw_action.workflows.completion import COMPLETION_TOOL, CompleteStepTool, StepCompletion
from aw_action.workflows.engine import check_completion, complete_step, pause_run, step_prompt
from aw_action.workflows.loader import LoadedWorkflow
from aw_action.workflows.state import RunState

REMINDER = (
    "You ended your turn without finishing the workflow step {step!r}. Continue the step if work remains, "
    "then call workflow_complete_step (alone in its message) with one of: {outcomes}."
)


@dataclass(frozen=True)
class StepRequest:
    """One prompt of one step. ``tools`` are the tool names to activate: the step's permitted
    tools (the runner drops names the session does not have) and the completion tool."""

    run_id: str
    step_id: str
    title: str
    visit: int
    prompt: str
    tools: tuple[str, ...]
    completion_tool: CompleteStepTool
    guard: StepGuard
    reminder: bool = False


@dataclass(frozen=True)
class StepResult:
    """How the prompt ended: ``stopped`` (the agent ended its turn) or ``failed`` (an error,
    a budget, the deadline or a cancel ended it; ``error`` says which)."""

    ended: Literal["stopped", "failed"]
    error: str = ""


class StepRunner(Protocol):
    async def run_step(self, request: StepRequest) -> StepResult:
        """Prompt the session with ``request.prompt`` under the step's tools and guard."""


def _describe_target(workflow: LoadedWorkflow, step_id: str) -> Callable[[str], str]:
    def next_of(outcome: str) -> str:
        step = workflow.definition.steps[step_id]
        if step.gate is not None and outcome == step.gate.submit_outcome:
            return "the artifact goes to human review and the run pauses"
        target = step.transitions.get(outcome, "")
        return {"$done": "the workflow is done", "$pause": "the workflow pauses"}.get(target, f"step {target!r}")

    return next_of


class WorkflowRun:
    """Runs ``state`` forward with ``runner``; ``save(state)`` is called after every change.

    ``cwd`` (where commands run) and ``variables`` (non-secret environment variables commands
    may use as ``"$NAME"``, with the values they run with) go to every step's bash policy."""

    def __init__(
        self,
        workflow: LoadedWorkflow,
        state: RunState,
        runner: StepRunner,
        *,
        save: Callable[[RunState], None] | None = None,
        max_reminders: int = 2,
        cwd: str | None = None,
        variables: Mapping[str, str] | None = None,
    ) -> None:
        self.workflow = workflow
        self.state = state
        self.runner = runner
        self._save = save
        self.max_reminders = max_reminders
        self.cwd = cwd
        self.variables = dict(variables or {})

    def _set(self, state: RunState) -> None:
        self.state = state
        if self._save is not None:
            self._save(state)

    async def run(self) -> RunState:
        """Run steps until the workflow is done or paused; returns the final state."""
        while self.state.status == "running":
            self._set(await self._run_step())
        return self.state

    def _tools(self, step_id: str, tool: CompleteStepTool) -> tuple[CompleteStepTool, StepGuard, tuple[str, ...]]:
        step = self.workflow.definition.steps[step_id]
        guard = StepGuard(step_id, step, tool, cwd=self.cwd, variables=self.variables)
        return tool, guard, (*step.permissions.tools, COMPLETION_TOOL)

    async def _run_step(self) -> RunState:
        state, workflow = self.state, self.workflow
        step_id = state.current_step
        step = workflow.definition.steps[step_id]

        def check(completion: StepCompletion) -> str | None:
            return check_completion(workflow, state, completion.outcome, completion.summary, completion.artifact)

        tool = CompleteStepTool(step_id, step.outcomes(), check, _describe_target(workflow, step_id))
        tool, guard, names = self._tools(step_id, tool)
        prompt = step_prompt(workflow, state)
        for attempt in range(1 + self.max_reminders):
            request = StepRequest(
                run_id=state.run_id,
                step_id=step_id,
                title=workflow.definition.title_of(step_id),
                visit=state.visit,
                prompt=prompt if attempt == 0 else REMINDER.format(step=step_id, outcomes=", ".join(step.outcomes())),
                tools=names,
                completion_tool=tool,
                guard=guard,
                reminder=attempt > 0,
            )
            result = await self.runner.run_step(request)
            done = tool.completion
            if done is not None:
                return complete_step(workflow, state, done.outcome, done.summary, done.artifact)
            if result.ended == "failed":
                return pause_run(state, "failed", f"step {step_id!r} stopped: {result.error or 'the prompt failed'}")
        tries = 1 + self.max_reminders
        return pause_run(state, "failed", f"step {step_id!r} ended {tries} times without {COMPLETION_TOOL}")
