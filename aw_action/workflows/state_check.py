"""Whether a stored run state is one the engine could have produced (a checkpoint is not trusted).

A checkpoint comes back from an artifact or a folder someone else could write; its schema
alone lets through a state nobody reached: the current step moved past a gate, an approved
artifact nobody approved, visit counts reset under the loop guard. ``state_problem`` replays the
recorded history through the workflow's graph from its start and names the first fact that does
not follow from it (pi-workflows' ``validateRunWorkflowSemantics`` does the same before
reconciling, src/engine/run-workflow-validation.ts):

- every completed step is the one the previous outcome led to, starting at ``start``; nothing
  follows a ``$done``; an outcome is one its step declares, leads where the step says, never to
  ``$pause``; a gate's approved and rejected outcomes are a reviewer's, the rest the agent's; an
  approved outcome carries its artifact, no other outcome does; each record's visit is the count
  the history gives at that point;
- the current step is where the history leads, the status is ``done`` exactly when it ended in
  ``$done``, the visit counts equal the history's, the reviewed artifact and feedback are the
  latest approval's, the incoming handoff is the one the history hands over;
- a pending review belongs to the current step's gate, submitted with its submit outcome, and
  the run is paused for it; a pause names the current step.

When the workflow changed since the checkpoint (another digest), the replay stops at the first
completed step whose digest differs: reconciliation restarts there and rebuilds the rest, and the
current step's own checks wait until it is known unchanged.
"""

from __future__ import annotations

from collections import Counter

from aw_action.workflows.loader import LoadedWorkflow
from aw_action.workflows.models import DONE, PAUSE, Step
from aw_action.workflows.state import RunState, StepRecord


def _keeps_handoff(step: Step, record: StepRecord) -> bool:
    """A reviewer sending a gated step back to itself leaves its incoming handoff as it was."""
    rejected = step.gate is not None and record.outcome == step.gate.rejected_outcome
    return rejected and record.target == record.step


def handoff_after(workflow: LoadedWorkflow, history: tuple[StepRecord, ...]) -> str:
    """The handoff the step after ``history`` receives (the engine's rule, replayed)."""
    handoff = ""
    for record in history:
        step = workflow.definition.steps.get(record.step)
        if step is None or not _keeps_handoff(step, record):
            handoff = record.handoff
    return handoff


def _record_problem(step: Step, record: StepRecord, visits: Counter[str]) -> str | None:
    name = f"completed step {record.step!r}"
    target = step.transitions.get(record.outcome)
    if target is None:
        return f"{name}: outcome {record.outcome!r} is not declared by the step"
    if record.target != target:
        return f"{name}: outcome {record.outcome!r} leads to {target!r}, not {record.target!r}"
    if target == PAUSE:
        return f"{name}: outcome {record.outcome!r} leads to $pause, which completes no step"
    gate = step.gate
    reviewed = gate is not None and record.outcome in (gate.approved_outcome, gate.rejected_outcome)
    if record.decided_by != ("reviewer" if reviewed else "agent"):
        return f"{name}: outcome {record.outcome!r} cannot be decided by the {record.decided_by}"
    approved = gate is not None and record.outcome == gate.approved_outcome
    if approved and not record.artifact.strip():
        return f"{name}: the approval of outcome {record.outcome!r} has no approved artifact"
    if not approved and record.artifact:
        return f"{name}: outcome {record.outcome!r} is no approval but carries an approved artifact"
    if record.visit != visits[record.step]:
        return f"{name}: recorded as visit {record.visit}, the history makes it visit {visits[record.step]}"
    return None


def _gate_problem(workflow: LoadedWorkflow, state: RunState) -> str | None:
    step = workflow.definition.steps[state.current_step]
    pending = state.pending_gate
    waiting = state.pause is not None and state.pause.kind == "gate"
    if pending is None:
        return "the run is paused for a review but no artifact is pending" if waiting else None
    if step.gate is None or pending.step != state.current_step or pending.outcome != step.gate.submit_outcome:
        return f"the pending review does not belong to the gate of the current step {state.current_step!r}"
    if pending.step_digest != state.current_step_digest:
        return "the pending review was submitted by another version of the current step"
    if state.status != "paused" or not waiting:
        return "an artifact is pending review but the run is not paused for it"
    return None


def state_problem(workflow: LoadedWorkflow, state: RunState) -> str | None:
    """The first fact of ``state`` its history does not support, or None (module docstring)."""
    definition = workflow.definition
    same_workflow = state.workflow_digest == workflow.digest
    expected = definition.start
    visits: Counter[str] = Counter({expected: 1})
    approval = ("", "")
    done = False
    for index, record in enumerate(state.history):
        if done:
            return "the history continues after the workflow reached $done"
        if record.step != expected:
            return f"completed step {record.step!r} is not reachable: the history leads to {expected!r}"
        step = definition.steps.get(record.step)
        if step is None or record.step_digest != workflow.step_digests[record.step]:
            if same_workflow:
                return f"completed step {record.step!r} does not match the workflow's digest"
            return None  # reconciliation restarts this step and rebuilds what follows
        problem = _record_problem(step, record, visits)
        if problem is not None:
            return problem
        if record.artifact:
            approval = (record.artifact, record.feedback)
        if record.target == DONE:
            done = index == len(state.history) - 1
            if not done:
                return "the history continues after the workflow reached $done"
            continue
        expected = record.target
        visits[expected] += 1
    if state.current_step != expected:
        return f"current step {state.current_step!r} is not reachable: the history leads to {expected!r}"
    if done != (state.status == "done"):
        return (
            "the history reached $done but the run is not done"
            if done
            else "the run is done but no $done ends its history"
        )
    if dict(visits) != state.visits:
        stored, replayed = dict(sorted(state.visits.items())), dict(sorted(visits.items()))
        return f"visit counts {stored} do not match the history's {replayed}"
    if (state.reviewed_artifact, state.reviewed_feedback) != approval:
        return "the reviewed artifact and feedback are not the latest approval the history records"
    if state.handoff != handoff_after(workflow, state.history):
        return "the incoming handoff is not what the history handed over"
    if (state.status == "paused") != (state.pause is not None):
        return f"status {state.status!r} does not agree with the recorded pause"
    if state.pause is not None and state.pause.step != state.current_step:
        return f"the pause names step {state.pause.step!r}, not the current step {state.current_step!r}"
    if state.current_step not in definition.steps:
        return None if not same_workflow else f"current step {state.current_step!r} is not in the workflow"
    if state.current_step_digest != workflow.step_digests[state.current_step]:
        return "the current step does not match the workflow's digest" if same_workflow else None
    return _gate_problem(workflow, state)
