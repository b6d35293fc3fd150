"""``workflow_complete_step``: the only way a step ends, as an ``AgentTool``.

The tool does not advance the run itself. It validates the call against the step (declared
outcome, non-empty summary, artifact for a gate submission) through the ``check`` it is given,
records the accepted completion, and tells the model to end its turn; the driver applies it
when the prompt returns. A second call after an accepted one is refused.

Batch rule: a completion changes the step, and with it the permissions, so it must be the only
tool call of its assistant message. ``completion_batch_rejections`` expresses that rule over the
(id, name) pairs of one message; the guard (``authorize.StepGuard``) applies it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.lazy_dataclass import dataclass

COMPLETION_TOOL = "workflow_complete_step"
BATCH_REASON = f"{COMPLETION_TOOL} must be the only tool call in its message; call it alone"


@dataclass(frozen=True)
class StepCompletion:
    step: str
    outcome: str
    summary: str
    artifact: str | None = None


def completion_batch_rejections(calls: Sequence[tuple[str, str]]) -> dict[str, str]:
    """For one assistant message's tool calls as (id, name): the ids of completion calls that
    share the message with another call, each with the reason. Other calls are not affected."""
    if len(calls) <= 1:
        return {}
    return {call_id: BATCH_REASON for call_id, name in calls if name == COMPLETION_TOOL}


class CompleteStepTool:
    """The completion tool for one step. ``check(completion)`` returns a refusal or ``None``."""

    name = COMPLETION_TOOL

    def __init__(
        self,
        step_id: str,
        outcomes: Sequence[str],
        check: Callable[[StepCompletion], str | None],
        next_of: Callable[[str], str] | None = None,
    ) -> None:
        self.step_id = step_id
        self.outcomes = list(outcomes)
        self._check = check
        self._next_of = next_of
        self.completion: StepCompletion | None = None

    @property
    def description(self) -> str:
        return (
            f"Finish the current workflow step ({self.step_id}) with one of its outcomes: "
            f"{', '.join(self.outcomes)}. The summary is handed to the next step. Call this tool alone, "
            "as the only tool call of your message, then end your turn."
        )

    @property
    def parameters(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "outcome": {"type": "string", "enum": self.outcomes, "description": "The step's outcome."},
                "summary": {"type": "string", "minLength": 1, "description": "Handoff for the next step."},
                "artifact": {"type": "string", "description": "Full content submitted for human review."},
            },
            "required": ["outcome", "summary"],
            "additionalProperties": False,
        }

    async def execute(self, call: ToolInvocation) -> ToolResult:
        args = call.args
        if self.completion is not None:
            raise ToolError(f"step {self.step_id!r} is already complete; end your turn")
        artifact = args.get("artifact")
        completion = StepCompletion(
            step=self.step_id,
            outcome=str(args.get("outcome", "")),
            summary=str(args.get("summary", "")),
            artifact=str(artifact) if artifact is not None else None,
        )
        reason = self._check(completion)
        if reason:
            raise ToolError(reason)
        self.completion = completion
        then = f" Next: {self._next_of(completion.outcome)}." if self._next_of else ""
        return ToolResult.text(
            f"Recorded outcome {completion.outcome!r} for step {self.step_id!r}.{then} End your turn now.",
            outcome=completion.outcome,
        )
