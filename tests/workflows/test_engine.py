"""The state machine: transitions by declared outcome, handoffs, the loop guard, pauses and gates.

Semantics ported from pi-workflows' engine (src/engine/run-advance.ts, gate-transitions.ts):
undeclared and gate-decided outcomes are refused, ``$pause`` keeps the incoming handoff and the
paused attempt's summary, a visit past maxStepVisits pauses, a reviewer's same-step revision is
never stopped by the guard, an approved artifact becomes the next handoff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.workflows import (
    EngineError,
    LoadedWorkflow,
    RunState,
    complete_step,
    decide_gate,
    load_workflow,
    pause_run,
    resume_run,
    start_run,
    step_prompt,
)
from aw_action.workflows.engine import allowed_outcomes, cap, prompt_values
from tests.workflows.support import FIX_WORKFLOW, fix_workflow, write_workflow


@pytest.fixture
def wf(tmp_path: Path) -> LoadedWorkflow:
    return fix_workflow(tmp_path)


def _at_plan(wf: LoadedWorkflow) -> RunState:
    return complete_step(wf, start_run(wf, "run-1", "issue #7"), "ready", "Found the bug in parser.py")


def _submitted(wf: LoadedWorkflow, artifact: str = "# Plan\n1. fix parser") -> RunState:
    return complete_step(wf, _at_plan(wf), "submit", "Plan ready", artifact)


def test_given_a_new_run_then_it_starts_at_start_with_one_visit(wf: LoadedWorkflow) -> None:
    state = start_run(wf, "run-1", "issue #7")
    assert (state.status, state.current_step, state.visits) == ("running", "inspect", {"inspect": 1})
    assert state.workflow_digest == wf.digest and state.current_step_digest == wf.step_digests["inspect"]


def test_given_a_declared_outcome_then_the_run_moves_and_hands_over_the_summary(wf: LoadedWorkflow) -> None:
    state = _at_plan(wf)
    assert (state.current_step, state.visits) == ("plan", {"inspect": 1, "plan": 1})
    assert state.handoff == "Found the bug in parser.py"
    record = state.history[-1]
    assert (record.step, record.outcome, record.target, record.visit) == ("inspect", "ready", "plan", 1)
    assert record.step_digest == wf.step_digests["inspect"]


@pytest.mark.parametrize(
    ("step_outcome", "reason"),
    [("finished", "not declared by step 'inspect' (declared: ready, blocked)"), ("READY", "not declared")],
)
def test_given_an_undeclared_outcome_then_the_completion_is_refused(
    wf: LoadedWorkflow, step_outcome: str, reason: str
) -> None:
    with pytest.raises(EngineError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        complete_step(wf, start_run(wf, "r", "x"), step_outcome, "summary")


def test_given_a_gated_step_then_the_agent_cannot_report_the_reviewers_outcomes(wf: LoadedWorkflow) -> None:
    state = _at_plan(wf)
    assert allowed_outcomes(wf, state) == ["blocked", "submit"]
    for outcome in ("approved", "changes-requested"):
        with pytest.raises(EngineError, match="not declared"):
            complete_step(wf, state, outcome, "I approve myself")


def test_given_an_empty_summary_then_the_completion_is_refused(wf: LoadedWorkflow) -> None:
    with pytest.raises(EngineError, match="summary must not be empty"):
        complete_step(wf, start_run(wf, "r", "x"), "ready", "  \n ")


def test_given_a_long_summary_then_the_handoff_is_capped_with_a_visible_mark(wf: LoadedWorkflow) -> None:
    state = complete_step(wf, start_run(wf, "r", "x"), "ready", "y" * 10_000)
    assert len(state.handoff) == wf.definition.summary_max_chars
    assert state.handoff.endswith("[cut at 4000 characters]")
    assert cap("short", 100) == "short"


def test_given_pause_outcome_then_the_run_pauses_keeping_the_incoming_handoff(wf: LoadedWorkflow) -> None:
    state = complete_step(wf, _at_plan(wf), "blocked", "Need the API spec")
    assert state.status == "paused" and state.pause is not None
    assert (state.pause.kind, state.current_step) == ("requested", "plan")
    assert state.handoff == "Found the bug in parser.py" and state.paused_summary == "Need the API spec"
    resumed = resume_run(wf, state)
    assert resumed.status == "running" and resumed.visits["plan"] == 1
    last = prompt_values(wf, resumed)["last.summary"]
    assert last == "Found the bug in parser.py\n\nLatest paused attempt:\nNeed the API spec"


def test_given_done_then_nothing_more_can_complete(wf: LoadedWorkflow) -> None:
    state = decide_gate(wf, _submitted(wf), approved=True)
    state = complete_step(wf, state, "done", "Implemented")
    state = complete_step(wf, state, "passed", "All green")
    assert state.status == "done" and state.history[-1].target == "$done"
    with pytest.raises(EngineError, match="workflow is done"):
        complete_step(wf, state, "passed", "again")


def test_given_a_loop_then_the_visit_past_max_step_visits_pauses_the_run(wf: LoadedWorkflow) -> None:
    state = complete_step(wf, decide_gate(wf, _submitted(wf), approved=True), "retry", "try 2")
    state = complete_step(wf, state, "retry", "try 3")
    assert state.status == "running" and state.visits["implement"] == 3
    state = complete_step(wf, state, "retry", "try 4")
    assert state.status == "paused" and state.pause is not None and state.pause.kind == "loop_guard"
    assert state.visits["implement"] == 4 and "maxStepVisits 3" in state.pause.reason
    with pytest.raises(EngineError, match="used its 3 visits"):
        resume_run(wf, state)


def test_given_the_limit_is_raised_then_a_loop_guarded_run_resumes(wf: LoadedWorkflow, tmp_path: Path) -> None:
    state = decide_gate(wf, _submitted(wf), approved=True)
    for n in range(3):
        state = complete_step(wf, state, "retry", f"try {n + 2}")
    raised = load_workflow(
        write_workflow(tmp_path / "v2", FIX_WORKFLOW.replace("maxStepVisits: 3", "maxStepVisits: 6"))
    )
    assert resume_run(raised, state).status == "running"


def test_given_a_gate_submission_then_an_artifact_is_required(wf: LoadedWorkflow) -> None:
    for artifact in (None, "", "  "):
        with pytest.raises(EngineError, match="put the full content in 'artifact'"):
            complete_step(wf, _at_plan(wf), "submit", "Plan ready", artifact)
    with pytest.raises(EngineError, match="artifact longer than"):
        complete_step(wf, _at_plan(wf), "submit", "Plan ready", "x" * 200_001)


def test_given_a_submission_then_the_run_pauses_for_review_and_cannot_simply_resume(wf: LoadedWorkflow) -> None:
    state = _submitted(wf)
    assert state.status == "paused" and state.pause is not None and state.pause.kind == "gate"
    assert state.pending_gate is not None and state.pending_gate.artifact.startswith("# Plan")
    with pytest.raises(EngineError, match="waits for review"):
        resume_run(wf, state)


def test_given_approval_then_the_artifact_becomes_the_reviewed_handoff(wf: LoadedWorkflow) -> None:
    state = decide_gate(wf, _submitted(wf), approved=True, feedback="LGTM, keep it small")
    assert (state.status, state.current_step) == ("running", "implement")
    assert state.handoff == state.reviewed_artifact == "# Plan\n1. fix parser"
    assert state.reviewed_feedback == "LGTM, keep it small"
    record = state.history[-1]
    assert (record.outcome, record.decided_by, record.summary) == ("approved", "reviewer", "Plan ready")
    prompt = step_prompt(wf, state)
    assert "Implement the approved plan:\n# Plan\n1. fix parser\nHandoff: # Plan" in prompt


def test_given_changes_requested_then_the_step_reruns_with_feedback_and_the_old_artifact(wf: LoadedWorkflow) -> None:
    state = decide_gate(wf, _submitted(wf), approved=False, feedback="Add a test first")
    assert (state.status, state.current_step, state.visits["plan"]) == ("running", "plan", 2)
    assert state.handoff == "Found the bug in parser.py"  # the incoming handoff survives a revision
    prompt = step_prompt(wf, state)
    assert "Feedback: Add a test first" in prompt and "Rejected: # Plan\n1. fix parser" in prompt
    assert state.trail[-1].event == "changes_requested"


def test_given_many_human_revisions_then_the_loop_guard_never_stops_the_reviewer(wf: LoadedWorkflow) -> None:
    state = _submitted(wf)
    for n in range(5):
        state = decide_gate(wf, state, approved=False, feedback=f"round {n}")
        assert state.status == "running"
        state = complete_step(wf, state, "submit", "Plan ready", f"# Plan v{n + 2}")
    assert state.visits["plan"] == 6 and state.pending_gate is not None


def test_given_a_decision_then_it_needs_a_pending_artifact_and_feedback_for_changes(wf: LoadedWorkflow) -> None:
    with pytest.raises(EngineError, match="no artifact is waiting"):
        decide_gate(wf, _at_plan(wf), approved=True)
    with pytest.raises(EngineError, match="needs feedback"):
        decide_gate(wf, _submitted(wf), approved=False, feedback=" ")


def test_given_a_failed_prompt_then_pause_run_records_why(wf: LoadedWorkflow) -> None:
    state = pause_run(start_run(wf, "r", "x"), "failed", "budget exceeded")
    assert state.pause is not None and (state.pause.kind, state.pause.reason) == ("failed", "budget exceeded")
    assert state.trail[-1].event == "paused"
    with pytest.raises(EngineError, match="only a running workflow can pause"):
        pause_run(state, "failed", "again")


def test_given_values_with_placeholders_then_rendering_never_expands_them_again(wf: LoadedWorkflow) -> None:
    state = start_run(wf, "run-9", "please print {{run.id}} and {{ gate.feedback }}")
    prompt = step_prompt(wf, state)
    assert prompt.startswith("Inspect please print {{run.id}} and {{ gate.feedback }} (run run-9, step inspect:")
    assert "Inspect the request)." in prompt


def test_the_step_prompt_ends_with_the_completion_contract(wf: LoadedWorkflow) -> None:
    prompt = step_prompt(wf, _at_plan(wf))
    assert "call workflow_complete_step with one of these outcomes: blocked, submit" in prompt
    assert "must be the only tool call in its message" in prompt
    assert "'submit' submits the full content in 'artifact' for human review" in prompt
    assert "at most 4000 characters" in prompt


GATE_TO_PAUSE = """\
version: 1
id: paused-approval
command: paused-approval
description: A gate whose approval pauses the run
start: plan
steps:
  plan:
    prompt: Plan
    gate: {submitOutcome: submit, approvedOutcome: approved, rejectedOutcome: rejected}
    transitions: {approved: $pause, rejected: $pause, finish: $done}
"""


def test_gate_approval_to_pause_remains_a_valid_incomplete_checkpoint(tmp_path: Path) -> None:
    """Ported from pi-workflows (wichayutdew/pi-workflows, test/function/engine.test.ts, "gate
    approval to $pause remains a valid incomplete checkpoint"): an approval whose transition is
    ``$pause`` completes no step, so it records no approval; the paused run is a checkpoint that
    reconciles unchanged (issue 30: resume refused it as forged) and resumes at the same step."""
    from aw_action.workflows import read_checkpoint, write_checkpoint
    from aw_action.workflows.checkpoint import make_checkpoint
    from aw_action.workflows.resume import prepare_resume, reconcile

    wf = load_workflow(write_workflow(tmp_path, GATE_TO_PAUSE, "paused.workflow.yml"))
    state = complete_step(
        wf,
        start_run(wf, "paused-approval", "x"),
        "submit",
        "Approval requires a later resume",
        "# Approved but incomplete plan",
    )
    state = decide_gate(wf, state, approved=True, feedback="Approved")
    assert (state.status, state.current_step, state.history) == ("paused", "plan", ())
    assert (state.reviewed_artifact, state.reviewed_feedback) == ("", "")
    assert state.pause is not None and state.pause.kind == "requested"
    assert reconcile(state, wf).state == state
    path = write_checkpoint(tmp_path / "cp.json", make_checkpoint(wf, state))
    resumed = prepare_resume(wf, read_checkpoint(path).state)
    assert (resumed.state.status, resumed.state.current_step, resumed.state.trail[-1].event) == (
        "running",
        "plan",
        "resumed",
    )
