"""Declarative multi-step workflows (pi-workflows compatible), run in one agent session.

Pure parts, usable without a session: ``load_workflow`` (strict YAML 1.2, schema, graph,
prompts), the state machine in ``engine``, per-step authorisation, the completion tool, the
checkpoint and its reconciliation, and the renderers. ``WorkflowRun`` drives a run through a
``StepRunner`` (``harness/step_runner.ContextStepRunner`` runs each step as a prompt of the run).

Layer: above ``agent``, ``tools`` and ``policy``; never imports extensions, sinks or entry code.
"""

from aw_action.workflows.authorize import Authorization, StepGuard, authorize_tool_call
from aw_action.workflows.checkpoint import Checkpoint, make_checkpoint, read_checkpoint, write_checkpoint
from aw_action.workflows.completion import (
    COMPLETION_TOOL,
    CompleteStepTool,
    StepCompletion,
    completion_batch_rejections,
)
from aw_action.workflows.driver import StepRequest, StepResult, StepRunner, WorkflowRun
from aw_action.workflows.engine import (
    allowed_outcomes,
    check_completion,
    complete_step,
    decide_gate,
    pause_run,
    resume_run,
    start_run,
    step_prompt,
)
from aw_action.workflows.errors import (
    CheckpointError,
    EngineError,
    UnsupportedFeatureError,
    WorkflowError,
    WorkflowLoadError,
)
from aw_action.workflows.graph import missing_tools
from aw_action.workflows.loader import LoadedWorkflow, load_workflow
from aw_action.workflows.render import audit_record, summary_markdown
from aw_action.workflows.resume import GateDecision, Reconciled, prepare_resume, reconcile
from aw_action.workflows.state import RunState

__all__ = [
    "COMPLETION_TOOL",
    "Authorization",
    "Checkpoint",
    "CheckpointError",
    "CompleteStepTool",
    "EngineError",
    "GateDecision",
    "LoadedWorkflow",
    "Reconciled",
    "RunState",
    "StepCompletion",
    "StepGuard",
    "StepRequest",
    "StepResult",
    "StepRunner",
    "UnsupportedFeatureError",
    "WorkflowError",
    "WorkflowLoadError",
    "WorkflowRun",
    "allowed_outcomes",
    "audit_record",
    "authorize_tool_call",
    "check_completion",
    "complete_step",
    "completion_batch_rejections",
    "decide_gate",
    "load_workflow",
    "make_checkpoint",
    "missing_tools",
    "pause_run",
    "prepare_resume",
    "read_checkpoint",
    "reconcile",
    "resume_run",
    "start_run",
    "step_prompt",
    "summary_markdown",
    "write_checkpoint",
]
