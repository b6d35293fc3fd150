"""The run state of one workflow run: plain, frozen, JSON-serialisable data.

The engine (``engine.py``) is the only code that makes new states; the checkpoint stores them,
the renderers read them. ``history`` holds completed steps in order (what resume reconciles);
``trail`` holds every event (completions, gate decisions, pauses, resumes, restarts) for the
audit record and the step summary.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Status = Literal["running", "paused", "done"]
PauseKind = Literal["requested", "gate", "loop_guard", "failed"]
TrailEvent = Literal["completed", "submitted", "approved", "changes_requested", "paused", "resumed", "restarted"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StepRecord(_Model):
    """A completed step: the outcome that moved the run on, and the summary it handed over."""

    step: str
    step_digest: str
    visit: int
    outcome: str
    target: str
    summary: str
    decided_by: Literal["agent", "reviewer"] = "agent"
    artifact: str = ""
    """The approved artifact, when a reviewer approved this step (it was the next handoff)."""
    feedback: str = ""
    """The reviewer's note or requested changes, when a reviewer decided this step."""

    @property
    def handoff(self) -> str:
        """What this step handed to the next one."""
        return self.artifact or self.summary


class PendingGate(_Model):
    """An artifact submitted for human review, waiting for a decision on resume."""

    step: str
    step_digest: str
    outcome: str
    artifact: str
    summary: str


class Pause(_Model):
    kind: PauseKind
    step: str
    reason: str


class TrailEntry(_Model):
    event: TrailEvent
    step: str
    visit: int
    outcome: str = ""
    target: str = ""
    reason: str = ""


class RunState(_Model):
    run_id: str
    workflow_id: str
    workflow_digest: str
    input: str
    status: Status
    current_step: str
    current_step_digest: str
    visits: dict[str, int]
    history: tuple[StepRecord, ...] = ()
    trail: tuple[TrailEntry, ...] = ()
    handoff: str = ""
    """The incoming handoff of the current step: the previous step's summary, or the artifact a
    reviewer approved."""
    paused_summary: str = ""
    """The summary of the current step's last attempt when that attempt asked to pause."""
    gate_feedback: str = ""
    gate_artifact: str = ""
    reviewed_artifact: str = ""
    reviewed_feedback: str = ""
    pending_gate: PendingGate | None = None
    pause: Pause | None = None

    @property
    def visit(self) -> int:
        return self.visits.get(self.current_step, 0)
