"""Typed workflow definitions (pi-workflows' field names, camelCase in the file).

Built only from data that passed the schema and the unsupported-feature check, so these models
hold just what aw-harness implements. They are frozen: a loaded workflow never changes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from aw_action.policy import BashPolicy

DONE = "$done"
PAUSE = "$pause"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class PromptFile(_Model):
    """A prompt kept in a file next to the workflow (confined to the workflow's folder)."""

    file: str


class Permissions(_Model):
    """What a step may call; everything defaults to denied."""

    tools: tuple[str, ...] = ()
    bash: BashPolicy = Field(default_factory=BashPolicy)
    mcp: tuple[str, ...] = ()
    """MCP selectors (seed 004): ``server`` (every tool of the configured server) or
    ``server/tool``; a step sees no MCP tool unless one of them grants it (``authorize.mcp_granted``)."""


class Requires(_Model):
    """Tools that must exist (be registered in the session) before the step starts."""

    tools: tuple[str, ...] = ()


class Gate(_Model):
    """A human review: the step submits an artifact with ``submitOutcome``; a person approves
    (``approvedOutcome``) or requests changes (``rejectedOutcome``) when resuming the run."""

    provider: Literal["prompt"] = "prompt"
    submit_outcome: str = Field(alias="submitOutcome")
    approved_outcome: str = Field(alias="approvedOutcome")
    rejected_outcome: str = Field(alias="rejectedOutcome")


class Step(_Model):
    title: str | None = None
    prompt: str | PromptFile
    permissions: Permissions = Field(default_factory=Permissions)
    requires: Requires = Field(default_factory=Requires)
    transitions: dict[str, str]
    gate: Gate | None = None

    def outcomes(self) -> list[str]:
        """The outcomes the step itself may report: its transitions, except the two a gate's
        reviewer decides, plus the gate's submit outcome."""
        decided = {self.gate.approved_outcome, self.gate.rejected_outcome} if self.gate else set()
        own = [o for o in self.transitions if o not in decided]
        return [*own, self.gate.submit_outcome] if self.gate else own


class WorkflowDefinition(_Model):
    version: Literal[1]
    id: str
    command: str
    description: str
    start: str
    steps: dict[str, Step]
    max_step_visits: int = Field(default=5, alias="maxStepVisits")
    summary_max_chars: int = Field(default=4000, alias="summaryMaxChars")

    def title_of(self, step_id: str) -> str:
        return self.steps[step_id].title or step_id
