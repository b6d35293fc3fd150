"""What a workflow invocation is asked to do, as the CLI and the action inputs state it."""

from __future__ import annotations

from pathlib import Path

from aw_action.lazy_dataclass import dataclass
from aw_action.workflows.resume import GateDecision


@dataclass(frozen=True)
class WorkflowRequest:
    """A new run (``workflow`` and ``input``) or a resumed one (``checkpoint``, with the
    reviewer's ``decision`` when an artifact waits for review; ``workflow`` then defaults to the
    file the checkpoint names). Relative paths are from the workspace."""

    workflow: Path | None = None
    input: str | None = None
    checkpoint: Path | None = None
    decision: GateDecision | None = None
    approvals_withheld: str | None = None
    """Why the reviews the checkpoint records do not count (its origin, from GitHub's record of
    the run that uploaded it: ``github/run_origin.py``); None: they count (docs/workflows.md,
    "Which resumes are trusted")."""
