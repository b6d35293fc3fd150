"""Resume a paused run against the workflow as it is now (seed 004, "Pause, repair, resume").

``reconcile`` first checks that the state follows from its own history (``state_check``: a
forged or damaged checkpoint fails closed with ``CheckpointError``), then compares the
checkpoint's step digests with the reloaded workflow:
- nothing changed: the state is kept;
- a completed step changed: the earliest changed one restarts, later history is dropped;
- only the current step changed: it restarts (a pending review is dropped with it);
- only steps not yet reached (or workflow-level text) changed: the state is kept;
- a completed or the current step was removed, or the run belongs to another workflow: fail
  closed with ``CheckpointError`` (restore the step or start a new run).

``prepare_resume`` then withholds the reviews of a checkpoint whose origin cannot vouch for them
(``withhold_approvals``: the run restarts at the first step a reviewer decided; docs/workflows.md,
"Which resumes are trusted") and applies the reviewer's decision, or simply resumes a paused step.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import field

from aw_action.lazy_dataclass import dataclass
from aw_action.workflows.engine import decide_gate, resume_run
from aw_action.workflows.errors import CheckpointError, EngineError
from aw_action.workflows.loader import LoadedWorkflow
from aw_action.workflows.state import RunState, TrailEntry
from aw_action.workflows.state_check import handoff_after, state_problem


@dataclass(frozen=True)
class GateDecision:
    """A reviewer's decision: approve (``feedback`` is an optional note) or request changes."""

    approved: bool
    feedback: str = ""


@dataclass(frozen=True)
class Reconciled:
    state: RunState
    restarted_step: str | None = None
    notes: list[str] = field(default_factory=list)


def _restarted(state: RunState, step: str, reason: str, **update: object) -> RunState:
    entry = TrailEntry(event="restarted", step=step, visit=state.visits.get(step, 0), reason=reason)
    return state.model_copy(update={**update, "trail": (*state.trail, entry)})


def _removed(state: RunState, workflow: LoadedWorkflow) -> None:
    """``CheckpointError`` when a step the run completed or stands at is no longer in the workflow."""
    steps = workflow.definition.steps
    for record in state.history:
        if record.step not in steps:
            raise CheckpointError(
                f"completed step {record.step!r} was removed from the workflow; restore it or start a new run"
            )
    if state.current_step not in steps:
        raise CheckpointError(
            f"current step {state.current_step!r} was removed from the workflow; restore it or start a new run"
        )


def _rewound(state: RunState, workflow: LoadedWorkflow, index: int, reason: str) -> Reconciled:
    """The run restarted at its ``index``-th completed step: what followed dropped, the state
    rebuilt from the history before it (visits, handoff, the latest approval it holds)."""
    digests = workflow.step_digests
    kept = state.history[:index]
    step = state.history[index].step
    approvals = [r for r in kept if r.artifact]
    visits = Counter(r.step for r in kept)
    visits[step] += 1
    restarted = _restarted(
        state,
        step,
        reason,
        workflow_digest=workflow.digest,
        status="running",
        current_step=step,
        current_step_digest=digests[step],
        visits=dict(visits),
        history=kept,
        handoff=handoff_after(workflow, kept),
        paused_summary="",
        gate_feedback="",
        gate_artifact="",
        reviewed_artifact=approvals[-1].artifact if approvals else "",
        reviewed_feedback=approvals[-1].feedback if approvals else "",
        pending_gate=None,
        pause=None,
    )
    return Reconciled(restarted, step, [reason])


def withhold_approvals(workflow: LoadedWorkflow, fitted: Reconciled, why: str) -> Reconciled:
    """``fitted`` without a reviewer's decision its checkpoint records, for a checkpoint whose
    origin cannot vouch for them (``why``): the run restarts at the first step a reviewer
    decided, so its gate is decided again; a run no reviewer decided yet is kept."""
    state = fitted.state
    first = next((i for i, r in enumerate(state.history) if r.decided_by == "reviewer"), None)
    if first is None:
        return fitted
    step = state.history[first].step
    reason = f"the review of step {step!r} is not trusted ({why}); the step runs again for a new review"
    rewound = _rewound(state, workflow, first, reason)
    return Reconciled(rewound.state, step, [*fitted.notes, reason])


def reconcile(state: RunState, workflow: LoadedWorkflow) -> Reconciled:
    """``state`` fitted to the current ``workflow`` (see the module docstring)."""
    definition = workflow.definition
    if state.workflow_id != definition.id:
        raise CheckpointError(f"the checkpoint belongs to workflow {state.workflow_id!r}, not {definition.id!r}")
    if state.workflow_digest != workflow.digest:
        _removed(state, workflow)
    problem = state_problem(workflow, state)
    if problem is not None:
        raise CheckpointError(f"the run state does not follow from its history: {problem}")
    if state.workflow_digest == workflow.digest:
        return Reconciled(state)
    digests = workflow.step_digests
    changed = next((i for i, r in enumerate(state.history) if digests[r.step] != r.step_digest), None)
    if changed is not None:
        step = state.history[changed].step
        return _rewound(state, workflow, changed, f"step {step!r} changed since it completed; it runs again")
    if digests[state.current_step] != state.current_step_digest:
        step = state.current_step
        notes = [f"step {step!r} changed; it restarts"]
        if state.pending_gate is not None:
            notes.append(f"the artifact step {step!r} submitted for review was dropped; the step submits again")
        restarted = _restarted(
            state,
            step,
            notes[0],
            workflow_digest=workflow.digest,
            current_step_digest=digests[step],
            status="running",
            pending_gate=None,
            pause=None,
            paused_summary="",
        )
        return Reconciled(restarted, step, notes)
    return Reconciled(state.model_copy(update={"workflow_digest": workflow.digest}), None, ["only later steps changed"])


def prepare_resume(
    workflow: LoadedWorkflow,
    state: RunState,
    decision: GateDecision | None = None,
    approvals_withheld: str | None = None,
) -> Reconciled:
    """The running state to continue from, or ``CheckpointError`` saying why the run cannot go on.

    A decision is required exactly when an artifact waits for review, so a reviewer never
    approves something that is no longer pending. ``approvals_withheld``: why the reviews the
    checkpoint records do not count (its origin, ``WorkflowRequest.approvals_withheld``)."""
    if state.status == "done":
        raise CheckpointError("the workflow run already finished")
    fitted = reconcile(state, workflow)
    if approvals_withheld is not None:
        fitted = withhold_approvals(workflow, fitted, approvals_withheld)
    current = fitted.state
    try:
        if current.pending_gate is not None:
            if decision is None:
                raise CheckpointError(
                    f"step {current.current_step!r} waits for review: resume with approve or request-changes"
                )
            current = decide_gate(workflow, current, decision.approved, decision.feedback)
        elif decision is not None:
            why = "; ".join(fitted.notes) or "the run is not waiting for a review"
            raise CheckpointError(f"no artifact waits for review ({why}); resume without a decision")
        elif current.status == "paused":
            current = resume_run(workflow, current)
    except EngineError as exc:
        raise CheckpointError(str(exc)) from None
    return Reconciled(current, fitted.restarted_step, fitted.notes)
