"""Where a workflow invocation starts: a new run of a workflow file, or a checkpoint resumed.

``prepare_start`` does every check that needs no session, so each problem is an
``InvocationError`` (exit 2) before anything runs: the workflow loads (strict YAML, schema,
graph, prompts: ``file:line: path: message``), the checkpoint reads and fits the workflow as it
is now (``workflows.resume``: a changed step restarts, a removed one fails closed), the
reviewer's decision matches what the run waits for, and the saved conversation is a history a
session can continue. A checkpoint the ``records.sha256`` beside it names (its run's digests,
which travel with it in the artifact) must still be what that run wrote.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import field
from pathlib import Path

from aw_action.agent.events import AnyMessage
from aw_action.agent.history import history_problem
from aw_action.exits import InvocationError
from aw_action.lazy_dataclass import dataclass
from aw_action.run import record_table
from aw_action.security.records.record_manifest import file_problem
from aw_action.workflows.checkpoint import MAX_CHECKPOINT_BYTES, messages_from_json, read_checkpoint
from aw_action.workflows.engine import start_run
from aw_action.workflows.errors import CheckpointError, WorkflowLoadError
from aw_action.workflows.loader import LoadedWorkflow, load_workflow
from aw_action.workflows.request import WorkflowRequest
from aw_action.workflows.resume import prepare_resume
from aw_action.workflows.state import RunState

CHECKPOINT_FILE = record_table.WORKFLOW_CHECKPOINT.name


@dataclass(frozen=True)
class WorkflowStart:
    workflow: LoadedWorkflow
    state: RunState
    resumed: bool
    messages: list[AnyMessage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    earlier_events: int = 0
    """How many of ``state.trail``'s events an earlier run already recorded."""


def _load(path: Path) -> LoadedWorkflow:
    try:
        return load_workflow(path)
    except WorkflowLoadError as exc:
        raise InvocationError(str(exc)) from None


def _resolve(workspace: Path, path: Path) -> Path:
    return path if path.is_absolute() else workspace / path


def _checkpoint_workflow(workspace: Path, source: str, where: str) -> Path:
    """The workflow file a checkpoint names, taken only when it is a path inside the workspace: a
    checkpoint travels in an artifact anyone who could write it could have forged, with a workflow
    of its own beside it (no review gate, every tool), and the state check passes for a pair
    written together. A workflow outside the workspace is named with ``--workflow`` or not at all."""
    path = Path(source)
    inside = bool(source) and "\0" not in source and not path.is_absolute() and ".." not in path.parts
    if not inside or not (workspace / path).resolve().is_relative_to(workspace.resolve()):
        raise InvocationError(
            f"checkpoint {where}: it names its workflow as {source[:200]!r}, which is not a file inside the "
            "workspace: name the workflow file with --workflow"
        )
    return path


def prepare_start(request: WorkflowRequest, workspace: Path) -> WorkflowStart:
    """Raises ``InvocationError`` naming the file (and line and field) of the first problem."""
    if request.checkpoint is None:
        if request.workflow is None:
            raise InvocationError("a workflow file is required")
        if request.decision is not None:
            raise InvocationError("a review decision needs a checkpoint to resume")
        text = request.input or ""
        if not text.strip():
            raise InvocationError("the workflow input is empty (--input, or the action's prompt)")
        workflow = _load(_resolve(workspace, request.workflow))
        return WorkflowStart(workflow, start_run(workflow, uuid.uuid4().hex[:12], text), resumed=False)
    checkpoint_path = _resolve(workspace, request.checkpoint)
    try:
        stored = read_checkpoint(checkpoint_path)
    except CheckpointError as exc:
        raise InvocationError(f"checkpoint {exc}") from None
    tampered = file_problem(checkpoint_path, MAX_CHECKPOINT_BYTES)
    if tampered is not None:
        raise InvocationError(f"checkpoint {os.fspath(checkpoint_path)}: {tampered}")
    where = os.fspath(checkpoint_path)
    named = request.workflow or _checkpoint_workflow(workspace, stored.workflow.source, where)
    workflow = _load(_resolve(workspace, named))
    try:
        messages = messages_from_json(stored.messages) if stored.messages else []
        ready = prepare_resume(workflow, stored.state, request.decision, request.approvals_withheld)
    except CheckpointError as exc:
        raise InvocationError(f"checkpoint {where}: {exc}") from None
    problem = history_problem(messages) if messages else None
    if problem is not None:
        raise InvocationError(f"checkpoint {where}: the saved conversation cannot be continued: {problem}")
    earlier = len(stored.state.trail)
    return WorkflowStart(workflow, ready.state, True, messages, list(ready.notes), earlier_events=earlier)
