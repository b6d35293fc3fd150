"""Checkpoints on disk and resume with configuration drift (seed 004 "Pause, repair, resume").

Drift rules: a changed current step restarts it, the earliest changed completed step restarts
there, future-only changes keep the checkpoint, a removed current or completed step fails closed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from aw_action.workflows import (
    CheckpointError,
    GateDecision,
    LoadedWorkflow,
    RunState,
    complete_step,
    decide_gate,
    load_workflow,
    make_checkpoint,
    prepare_resume,
    read_checkpoint,
    reconcile,
    start_run,
    write_checkpoint,
)
from aw_action.workflows.checkpoint import MAX_CHECKPOINT_BYTES
from tests.workflows.support import FIX_WORKFLOW, PLAN_PROMPT, write_workflow


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "wf"


@pytest.fixture
def wf(folder: Path) -> LoadedWorkflow:
    return load_workflow(write_workflow(folder))


def _edit(folder: Path, old: str, new: str) -> LoadedWorkflow:
    path = folder / "fix.workflow.yml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))
    return load_workflow(path)


def _submitted(wf: LoadedWorkflow) -> RunState:
    state = complete_step(wf, start_run(wf, "run-1", "issue #7"), "ready", "Bug in parser.py")
    return complete_step(wf, state, "submit", "Plan ready", "# Plan\n1. fix parser")


def _at_verify(wf: LoadedWorkflow) -> RunState:
    state = decide_gate(wf, _submitted(wf), approved=True)
    return complete_step(wf, state, "done", "Implemented the fix")


# ---- the file --------------------------------------------------------------------------------


def test_given_a_paused_run_when_checkpointed_then_reading_it_back_gives_the_same_run(
    wf: LoadedWorkflow, tmp_path: Path
) -> None:
    state = _submitted(wf)
    messages = [{"role": "user", "content": "hi"}]
    path = write_checkpoint(tmp_path / "out" / "checkpoint.json", make_checkpoint(wf, state, messages=messages))
    back = read_checkpoint(path)
    assert back.state == state and back.messages == messages
    assert back.workflow.digest == wf.digest and back.workflow.step_digests == wf.step_digests
    assert (back.kind, back.version) == ("aw-harness/workflow-checkpoint", 1)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert sorted(p.name for p in path.parent.iterdir()) == ["checkpoint.json"]  # no temporary file left


def test_given_an_existing_checkpoint_when_rewritten_then_it_is_replaced_whole(
    wf: LoadedWorkflow, tmp_path: Path
) -> None:
    path = tmp_path / "checkpoint.json"
    write_checkpoint(path, make_checkpoint(wf, start_run(wf, "r", "x" * 100_000)))
    inode = path.stat().st_ino
    write_checkpoint(path, make_checkpoint(wf, _submitted(wf)))
    assert path.stat().st_ino != inode  # renamed into place, never truncated and rewritten
    assert read_checkpoint(path).state.pending_gate is not None


def test_given_a_scrubber_then_no_secret_reaches_the_checkpoint(wf: LoadedWorkflow, tmp_path: Path) -> None:
    secret = "ghs_SECRETTOKEN1234567890"
    state = complete_step(wf, start_run(wf, "r", f"token {secret}"), "ready", f"I saw {secret} in env")
    path = write_checkpoint(
        tmp_path / "c.json",
        make_checkpoint(wf, state, messages=[{"content": [{"text": secret}]}]),
        scrub=lambda text: text.replace(secret, "***"),
    )
    text = path.read_text()
    assert secret not in text and "I saw *** in env" in text


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "not valid JSON"),
        (b"{", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b'{"kind": "aw-harness/workflow-checkpoint", "version": NaN}', "NaN is not a number JSON allows"),
        (b"[]", "not an aw-harness workflow checkpoint"),
        (b'{"kind": "pi-workflows", "version": 1}', "not an aw-harness workflow checkpoint"),
        (b'{"kind": "aw-harness/workflow-checkpoint", "version": 2}', "checkpoint version 2 is not supported"),
        (b'{"kind": "aw-harness/workflow-checkpoint", "version": 1}', "written_at: Field required"),
    ],
)
def test_given_a_malformed_checkpoint_then_reading_fails_naming_the_file(
    tmp_path: Path, content: bytes, reason: str
) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(content)
    with pytest.raises(CheckpointError, match=reason) as info:
        read_checkpoint(path)
    assert str(info.value).startswith(str(path))


def test_given_an_unknown_field_in_the_state_then_reading_fails(wf: LoadedWorkflow, tmp_path: Path) -> None:
    path = write_checkpoint(tmp_path / "c.json", make_checkpoint(wf, start_run(wf, "r", "x")))
    data = json.loads(path.read_text())
    data["state"]["visits_extra"] = 1
    path.write_text(json.dumps(data))
    with pytest.raises(CheckpointError, match=r"state\.visits_extra"):
        read_checkpoint(path)


def test_given_a_fifo_or_huge_file_then_reading_fails_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json")
    with pytest.raises(CheckpointError, match="not a regular file"):
        read_checkpoint(tmp_path / "fifo.json")
    with open(tmp_path / "big.json", "wb") as handle:
        handle.truncate(MAX_CHECKPOINT_BYTES + 1)
    with pytest.raises(CheckpointError, match="larger than"):
        read_checkpoint(tmp_path / "big.json")
    with pytest.raises(CheckpointError, match="cannot open"):
        read_checkpoint(tmp_path / "missing.json")


# ---- drift -----------------------------------------------------------------------------------


def test_given_no_change_then_reconcile_keeps_the_state(wf: LoadedWorkflow) -> None:
    state = _submitted(wf)
    assert reconcile(state, wf).state is state


def test_given_only_a_later_step_changed_then_the_checkpoint_is_kept(wf: LoadedWorkflow, folder: Path) -> None:
    state = _submitted(wf)
    changed = _edit(folder, 'prompt: "Verify. Handoff', 'prompt: "Verify twice. Handoff')
    fitted = reconcile(state, changed)
    assert fitted.restarted_step is None and fitted.state.pending_gate == state.pending_gate
    assert fitted.state.workflow_digest == changed.digest and fitted.state.history == state.history


def test_given_the_current_step_changed_then_it_restarts_and_its_pending_review_is_dropped(
    wf: LoadedWorkflow, folder: Path
) -> None:
    state = _submitted(wf)
    (folder / "prompts" / "plan.md").write_text(PLAN_PROMPT + "Also list risks.\n")
    changed = load_workflow(folder / "fix.workflow.yml")
    fitted = reconcile(state, changed)
    assert fitted.restarted_step == "plan"
    assert (fitted.state.status, fitted.state.current_step, fitted.state.pending_gate) == ("running", "plan", None)
    assert fitted.state.current_step_digest == changed.step_digests["plan"]
    assert fitted.state.handoff == "Bug in parser.py" and fitted.state.visits == state.visits
    assert fitted.state.trail[-1].event == "restarted"
    with pytest.raises(CheckpointError, match=r"was dropped.*resume without a decision"):
        prepare_resume(changed, state, GateDecision(approved=True))
    assert prepare_resume(changed, state).state.current_step == "plan"


def test_given_a_completed_step_changed_then_the_earliest_changed_step_restarts(
    wf: LoadedWorkflow, folder: Path
) -> None:
    state = _at_verify(wf)
    (folder / "prompts" / "plan.md").write_text(PLAN_PROMPT + "Changed.\n")
    changed = _edit(
        folder, "transitions: {done: verify, retry: implement}", "transitions: {done: verify, again: implement}"
    )
    fitted = reconcile(state, changed)
    assert fitted.restarted_step == "plan"
    assert [r.step for r in fitted.state.history] == ["inspect"]
    assert fitted.state.visits == {"inspect": 1, "plan": 1}
    assert fitted.state.handoff == "Bug in parser.py"
    assert fitted.state.reviewed_artifact == "" and fitted.state.status == "running"


def test_given_a_step_after_an_approval_changed_then_the_approved_artifact_is_kept(
    wf: LoadedWorkflow, folder: Path
) -> None:
    state = _at_verify(wf)
    changed = _edit(folder, "Implement the approved plan:", "Implement exactly the approved plan:")
    fitted = reconcile(state, changed)
    assert fitted.restarted_step == "implement"
    assert [r.step for r in fitted.state.history] == ["inspect", "plan"]
    assert fitted.state.reviewed_artifact == "# Plan\n1. fix parser" == fitted.state.handoff


def test_given_the_current_step_was_removed_then_resume_fails_closed(wf: LoadedWorkflow, folder: Path) -> None:
    state = _at_verify(wf)
    text = FIX_WORKFLOW[: FIX_WORKFLOW.index("  verify:")].replace("{done: verify,", "{done: $done,")
    changed = load_workflow(write_workflow(folder, text))
    with pytest.raises(CheckpointError, match="current step 'verify' was removed"):
        reconcile(state, changed)


def test_given_a_completed_step_was_removed_then_resume_fails_closed(wf: LoadedWorkflow, folder: Path) -> None:
    state = _at_verify(wf)
    text = FIX_WORKFLOW.replace("start: inspect", "start: plan")
    start = text.index("  inspect:")
    text = text[:start] + text[text.index("  plan:") :]
    changed = load_workflow(write_workflow(folder / "v2", text))
    with pytest.raises(CheckpointError, match="completed step 'inspect' was removed"):
        reconcile(state, changed)


def test_given_another_workflow_then_resume_fails_closed(wf: LoadedWorkflow, folder: Path) -> None:
    other = load_workflow(write_workflow(folder / "o", FIX_WORKFLOW.replace("id: fix", "id: other")))
    with pytest.raises(CheckpointError, match="belongs to workflow 'fix', not 'other'"):
        reconcile(_submitted(wf), other)


# ---- resume decisions ------------------------------------------------------------------------


def test_given_a_pending_review_then_resume_needs_a_decision(wf: LoadedWorkflow) -> None:
    with pytest.raises(CheckpointError, match="waits for review: resume with approve or request-changes"):
        prepare_resume(wf, _submitted(wf))


def test_given_approval_on_resume_then_the_run_continues_at_the_approved_transition(wf: LoadedWorkflow) -> None:
    resumed = prepare_resume(wf, _submitted(wf), GateDecision(approved=True)).state
    assert (resumed.status, resumed.current_step) == ("running", "implement")


def test_given_changes_requested_on_resume_then_the_step_reruns_with_the_feedback(wf: LoadedWorkflow) -> None:
    resumed = prepare_resume(wf, _submitted(wf), GateDecision(approved=False, feedback="Add tests")).state
    assert (resumed.current_step, resumed.gate_feedback) == ("plan", "Add tests")


def test_given_no_pending_review_then_a_decision_is_refused(wf: LoadedWorkflow) -> None:
    paused = complete_step(wf, start_run(wf, "r", "x"), "blocked", "need input")
    with pytest.raises(CheckpointError, match="no artifact waits for review"):
        prepare_resume(wf, paused, GateDecision(approved=True))
    assert prepare_resume(wf, paused).state.status == "running"


def test_given_a_finished_run_then_resume_is_refused(wf: LoadedWorkflow) -> None:
    done = complete_step(wf, _at_verify(wf), "passed", "green")
    with pytest.raises(CheckpointError, match="already finished"):
        prepare_resume(wf, done)


def test_given_a_checkpoint_written_mid_step_then_resume_reruns_that_step(wf: LoadedWorkflow) -> None:
    running = complete_step(wf, start_run(wf, "r", "x"), "ready", "found")
    assert prepare_resume(wf, running).state == running
