"""The workflow state machine: pure functions from a state (and an event) to the next state.

No I/O, no clock, no runtime types: the driver feeds it completions and gate decisions and
persists what comes out. Rules (pi-workflows' semantics, with a CI twist: a gate always pauses
the run until a person resumes it with a decision):

- A step advances only through an outcome it declares (``Step.outcomes``): a transition to a
  step, ``$done`` or ``$pause``, or the gate's submit outcome.
- Entering a step counts a visit; a visit beyond ``maxStepVisits`` pauses the run (loop guard)
  and resume refuses to continue until the limit allows it. A reviewer sending a gated step
  back to itself counts the visit but is never stopped by the guard.
- Summaries are capped at ``summaryMaxChars``; the summary of a completed step becomes the next
  step's handoff (``{{last.summary}}``); an approved artifact becomes the handoff instead.
"""

from __future__ import annotations

from aw_action.workflows.errors import EngineError
from aw_action.workflows.loader import LoadedWorkflow
from aw_action.workflows.models import DONE, PAUSE
from aw_action.workflows.prompts import render, step_contract
from aw_action.workflows.state import Pause, PauseKind, PendingGate, RunState, StepRecord, TrailEntry

MAX_ARTIFACT_CHARS = 200_000
MAX_FEEDBACK_CHARS = 20_000
_CUT_MARK = "\n… [cut at {n} characters]"


def cap(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its start plus a visible cut mark."""
    if len(text) <= limit:
        return text
    mark = _CUT_MARK.format(n=limit)
    return text[: max(0, limit - len(mark))] + mark


def start_run(workflow: LoadedWorkflow, run_id: str, workflow_input: str) -> RunState:
    start = workflow.definition.start
    return RunState(
        run_id=run_id,
        workflow_id=workflow.definition.id,
        workflow_digest=workflow.digest,
        input=workflow_input,
        status="running",
        current_step=start,
        current_step_digest=workflow.step_digests[start],
        visits={start: 1},
    )


def allowed_outcomes(workflow: LoadedWorkflow, state: RunState) -> list[str]:
    return workflow.definition.steps[state.current_step].outcomes()


def check_completion(
    workflow: LoadedWorkflow, state: RunState, outcome: str, summary: str, artifact: str | None = None
) -> str | None:
    """Why ``workflow_complete_step(outcome, summary, artifact)`` is refused now, or ``None``."""
    if state.status != "running":
        return f"the workflow is {state.status}; no step is running"
    step = workflow.definition.steps.get(state.current_step)
    if step is None:
        return f"current step {state.current_step!r} does not exist"
    declared = step.outcomes()
    if outcome not in declared:
        return f"outcome {outcome!r} is not declared by step {state.current_step!r} (declared: {', '.join(declared)})"
    if not summary.strip():
        return "summary must not be empty"
    if step.gate is not None and outcome == step.gate.submit_outcome:
        if not (artifact or "").strip():
            return f"outcome {outcome!r} submits for review: put the full content in 'artifact'"
        if len(artifact or "") > MAX_ARTIFACT_CHARS:
            return f"artifact longer than {MAX_ARTIFACT_CHARS} characters"
    return None


def _trail(state: RunState, event: str, **fields: str) -> tuple[TrailEntry, ...]:
    entry = TrailEntry.model_validate({"event": event, "step": state.current_step, "visit": state.visit, **fields})
    return (*state.trail, entry)


def _paused(state: RunState, kind: PauseKind, reason: str, **update: object) -> RunState:
    """``state`` (with ``update`` applied) paused for ``reason``; the pause joins the trail."""
    changed = state.model_copy(update=update)
    pause = Pause(kind=kind, step=changed.current_step, reason=reason)
    trail = _trail(changed, "paused", reason=reason)
    return changed.model_copy(update={"status": "paused", "pause": pause, "trail": trail})


def _advance(
    workflow: LoadedWorkflow,
    state: RunState,
    outcome: str,
    summary: str,
    handoff: str,
    decided_by: str,
    human_revision: bool = False,
    artifact: str = "",
    feedback: str = "",
) -> RunState:
    """Follow the transition of ``outcome`` from the current step."""
    target = workflow.definition.steps[state.current_step].transitions[outcome]
    trail = _trail(state, "completed" if decided_by == "agent" else "approved", outcome=outcome, target=target)
    if target == PAUSE:
        reason = f"step {state.current_step!r} asked to pause (outcome {outcome!r})"
        update: dict[str, object] = {"trail": trail, "paused_summary": summary}
        return _paused(state, "requested", reason, **update)
    record = StepRecord(
        step=state.current_step,
        step_digest=state.current_step_digest,
        visit=state.visit,
        outcome=outcome,
        target=target,
        summary=summary,
        decided_by="agent" if decided_by == "agent" else "reviewer",
        artifact=artifact,
        feedback=feedback,
    )
    common: dict[str, object] = {"history": (*state.history, record), "trail": trail, "paused_summary": ""}
    if not human_revision:
        common.update(handoff=handoff, gate_feedback="", gate_artifact="")
    if target == DONE:
        return state.model_copy(update={**common, "status": "done", "pause": None, "pending_gate": None})
    visits = {**state.visits, target: state.visits.get(target, 0) + 1}
    moved = state.model_copy(
        update={
            **common,
            "status": "running",
            "pause": None,
            "pending_gate": None,
            "current_step": target,
            "current_step_digest": workflow.step_digests[target],
            "visits": visits,
        }
    )
    limit = workflow.definition.max_step_visits
    if visits[target] > limit and not human_revision:
        return _paused(
            moved, "loop_guard", f"step {target!r} would start visit {visits[target]} (maxStepVisits {limit})"
        )
    return moved


def complete_step(
    workflow: LoadedWorkflow, state: RunState, outcome: str, summary: str, artifact: str | None = None
) -> RunState:
    """Apply the agent's ``workflow_complete_step``; ``EngineError`` if it is refused."""
    reason = check_completion(workflow, state, outcome, summary, artifact)
    if reason:
        raise EngineError(reason)
    step = workflow.definition.steps[state.current_step]
    capped = cap(summary, workflow.definition.summary_max_chars)
    if step.gate is not None and outcome == step.gate.submit_outcome:
        pending = PendingGate(
            step=state.current_step,
            step_digest=state.current_step_digest,
            outcome=outcome,
            artifact=artifact or "",
            summary=capped,
        )
        trail = _trail(state, "submitted", outcome=outcome, target="review")
        reason = f"step {state.current_step!r} submitted an artifact for review"
        return _paused(state, "gate", reason, trail=trail, pending_gate=pending)
    return _advance(workflow, state, outcome, capped, capped, "agent")


def decide_gate(workflow: LoadedWorkflow, state: RunState, approved: bool, feedback: str = "") -> RunState:
    """Apply a reviewer's decision on the pending artifact (approve, or request changes with
    ``feedback``) and follow the gate's transition."""
    pending = state.pending_gate
    if pending is None or state.pause is None or state.pause.kind != "gate":
        raise EngineError("no artifact is waiting for review")
    step = workflow.definition.steps.get(pending.step)
    if step is None or step.gate is None or pending.step != state.current_step:
        raise EngineError(f"the reviewed step {pending.step!r} no longer has a gate")
    if not approved and not feedback.strip():
        raise EngineError("requesting changes needs feedback for the step")
    feedback = cap(feedback, MAX_FEEDBACK_CHARS)
    running = state.model_copy(update={"status": "running", "pause": None, "pending_gate": None})
    if approved:
        outcome = step.gate.approved_outcome
        if step.transitions[outcome] != PAUSE:
            # an approval to ``$pause`` completes no step, so it records no approval either (as
            # pi-workflows: the reviewed pair is the latest approval the history holds)
            reviewed = {"reviewed_artifact": pending.artifact, "reviewed_feedback": feedback}
            running = running.model_copy(update=reviewed)
        return _advance(
            workflow, running, outcome, pending.summary, pending.artifact, "reviewer", False, pending.artifact, feedback
        )
    outcome = step.gate.rejected_outcome
    same_step = step.transitions[outcome] == pending.step
    summary = cap(f"Changes requested: {' '.join(feedback.split())}", workflow.definition.summary_max_chars)
    moved = _advance(workflow, running, outcome, summary, summary, "reviewer", same_step, feedback=feedback)
    decided = len(running.trail)
    trail = list(moved.trail)
    trail[decided] = trail[decided].model_copy(update={"event": "changes_requested"})
    update = {"trail": tuple(trail), "gate_feedback": feedback, "gate_artifact": pending.artifact}
    return moved.model_copy(update=update)


def pause_run(state: RunState, kind: PauseKind, reason: str) -> RunState:
    """Pause a running step from outside (the step failed, ran out of budget, was cancelled)."""
    if state.status != "running":
        raise EngineError(f"the workflow is {state.status}; only a running workflow can pause")
    return _paused(state, kind, reason)


def resume_run(workflow: LoadedWorkflow, state: RunState) -> RunState:
    """Continue a paused run at its current step (which restarts from its prompt)."""
    if state.status != "paused":
        raise EngineError(f"the workflow is {state.status}, not paused")
    if state.pending_gate is not None:
        raise EngineError(f"step {state.current_step!r} waits for review: approve it or request changes")
    limit = workflow.definition.max_step_visits
    if state.visit > limit:
        raise EngineError(
            f"step {state.current_step!r} has used its {limit} visits (maxStepVisits); raise the limit to continue"
        )
    return state.model_copy(update={"status": "running", "pause": None, "trail": _trail(state, "resumed")})


def prompt_values(workflow: LoadedWorkflow, state: RunState) -> dict[str, str]:
    """The values of every template variable for the current step."""
    last = state.handoff
    if state.paused_summary:
        last = f"{last}\n\nLatest paused attempt:\n{state.paused_summary}".strip()
    return {
        "workflow.input": state.input,
        "workflow.id": workflow.definition.id,
        "run.id": state.run_id,
        "step.id": state.current_step,
        "step.title": workflow.definition.title_of(state.current_step),
        "last.summary": last,
        "gate.feedback": state.gate_feedback,
        "gate.artifact": state.gate_artifact,
        "reviewed.artifact": state.reviewed_artifact,
        "reviewed.feedback": state.reviewed_feedback,
    }


def step_prompt(workflow: LoadedWorkflow, state: RunState) -> str:
    """The rendered prompt of the current step, with the completion contract appended."""
    step_id = state.current_step
    step = workflow.definition.steps[step_id]
    body = render(workflow.prompts[step_id], prompt_values(workflow, state))
    submit = step.gate.submit_outcome if step.gate else None
    contract = step_contract(
        step_id,
        workflow.definition.title_of(step_id),
        step.outcomes(),
        submit,
        workflow.definition.summary_max_chars,
    )
    return body + "\n" + contract
