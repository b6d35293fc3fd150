"""The workflow inputs of the action, as a ``WorkflowRequest`` (docs/workflows.md).

- ``workflow``: the workflow file (workspace-relative). With it, ``prompt``/``prompt-file`` is
  the workflow's input (``{{workflow.input}}``) for a new run.
- ``workflow-checkpoint``: resume the run this checkpoint holds (a ``workflow-checkpoint.json``
  from the paused run's artifact) instead; the input comes from the checkpoint, so ``prompt`` and
  ``prompt-file`` stay empty.
- ``workflow-checkpoint-run``: the id of the run that uploaded the checkpoint; GitHub's record of
  it decides whether the checkpoint's reviews count (``github/run_origin.py``, looked up by
  ``plan.build_plan``).
- ``workflow-decision``: for a run waiting for review, ``approve`` or ``request-changes``
  (``workflow-feedback`` is then required: what to change); ``continue`` (or empty) resumes a
  run that waits for no review. ``workflow-feedback`` with ``approve`` is the reviewer's note.

Every inconsistent combination is an ``ActionInputError`` naming the input.
"""

from __future__ import annotations

from pathlib import Path

from aw_action.exits import InvocationError
from aw_action.github.action_inputs import ActionInputError, ActionInputs
from aw_action.run.prompt_files import load_prompt
from aw_action.workflows.request import WorkflowRequest
from aw_action.workflows.resume import GateDecision


def _decision(inputs: ActionInputs) -> GateDecision | None:
    feedback = inputs.workflow_feedback or ""
    if inputs.workflow_decision == "approve":
        return GateDecision(approved=True, feedback=feedback)
    if inputs.workflow_decision == "request-changes":
        if not feedback.strip():
            raise ActionInputError("workflow-feedback", "required with workflow-decision: request-changes")
        return GateDecision(approved=False, feedback=feedback)
    if feedback:
        raise ActionInputError("workflow-feedback", "only used with workflow-decision approve or request-changes")
    return None


def require_workflow(inputs: ActionInputs) -> None:
    """The resume inputs make sense only with ``workflow``; checked before the prompt is."""
    if not inputs.workflow:
        for name in ("workflow-checkpoint", "workflow-checkpoint-run", "workflow-decision", "workflow-feedback"):
            if getattr(inputs, name.replace("-", "_")):
                raise ActionInputError("workflow", f"required when {name} is set")


def workflow_request(inputs: ActionInputs, prompt_file: Path | None) -> WorkflowRequest | None:
    """The request, or None when ``workflow`` is empty; ``prompt_file`` holds the prompt input
    (inline or a file), None when neither is set."""
    require_workflow(inputs)
    if not inputs.workflow:
        return None
    run = inputs.workflow_checkpoint_run
    if run and not inputs.workflow_checkpoint:
        raise ActionInputError("workflow-checkpoint-run", "only used with workflow-checkpoint (resuming a paused run)")
    if run and not (run.isascii() and run.isdigit()):
        raise ActionInputError("workflow-checkpoint-run", f"{run!r} is not a workflow run id (digits)")
    if inputs.workflow_checkpoint:
        if prompt_file is not None:
            raise ActionInputError("prompt", "a resumed workflow takes its input from the checkpoint; leave it empty")
        return WorkflowRequest(Path(inputs.workflow), None, Path(inputs.workflow_checkpoint), _decision(inputs))
    if inputs.workflow_decision or inputs.workflow_feedback:
        raise ActionInputError("workflow-decision", "only used with workflow-checkpoint (resuming a paused run)")
    if prompt_file is None:
        raise ActionInputError("prompt", "required: the workflow's input, as prompt or prompt-file")
    try:
        text = load_prompt(prompt_file)
    except InvocationError as exc:
        raise ActionInputError("prompt-file" if inputs.prompt_file else "prompt", str(exc)) from None
    return WorkflowRequest(Path(inputs.workflow), text)
