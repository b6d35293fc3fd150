"""Checks a workflow's shape once its fields are valid: the start step, transition targets,
gate contracts, permissions that contradict each other, and a graph where every step is
reachable and can still reach ``$done``.
"""

from __future__ import annotations

from collections.abc import Iterator

from aw_action.workflows.completion import COMPLETION_TOOL
from aw_action.workflows.models import DONE, PAUSE, WorkflowDefinition

Path = tuple[str | int, ...]


def _step_issues(workflow: WorkflowDefinition) -> Iterator[tuple[Path, str]]:
    for step_id, step in workflow.steps.items():
        base: Path = ("steps", step_id)
        for outcome, target in step.transitions.items():
            if target not in (DONE, PAUSE) and target not in workflow.steps:
                yield (*base, "transitions", outcome), f"unknown target step {target!r}"
        gate = step.gate
        if gate is not None:
            for role, outcome in (
                ("approvedOutcome", gate.approved_outcome),
                ("rejectedOutcome", gate.rejected_outcome),
            ):
                if outcome not in step.transitions:
                    yield (*base, "gate", role), f"gate outcome {outcome!r} has no transition"
            if gate.submit_outcome in step.transitions:
                yield (
                    (*base, "gate", "submitOutcome"),
                    (f"{gate.submit_outcome!r} is decided by the gate and must not be a transition"),
                )
            if gate.approved_outcome == gate.rejected_outcome:
                yield (*base, "gate"), "approvedOutcome and rejectedOutcome must differ"
        tools = step.permissions.tools
        if COMPLETION_TOOL in tools:
            yield (*base, "permissions", "tools"), f"{COMPLETION_TOOL!r} is added to every step; do not list it"
        if step.permissions.bash.mode != "deny" and "bash" not in tools:
            yield (*base, "permissions", "tools"), "must include 'bash' when bash.mode is not 'deny'"
        for tool in step.requires.tools:
            if tool not in tools:
                yield (*base, "requires", "tools"), f"required tool {tool!r} is not in permissions.tools"


def _reachable(workflow: WorkflowDefinition) -> set[str]:
    seen: set[str] = set()
    pending = [workflow.start] if workflow.start in workflow.steps else []
    while pending:
        step_id = pending.pop()
        if step_id in seen:
            continue
        seen.add(step_id)
        pending += [t for t in workflow.steps[step_id].transitions.values() if t in workflow.steps]
    return seen


def _can_finish(workflow: WorkflowDefinition) -> set[str]:
    """Steps from which some path of transitions reaches ``$done``."""
    finishing = {s for s, step in workflow.steps.items() if DONE in step.transitions.values()}
    changed = True
    while changed:
        changed = False
        for step_id, step in workflow.steps.items():
            if step_id not in finishing and finishing & set(step.transitions.values()):
                finishing.add(step_id)
                changed = True
    return finishing


def graph_issues(workflow: WorkflowDefinition) -> list[tuple[Path, str]]:
    """Every problem as (path, message); empty when the workflow is sound."""
    issues: list[tuple[Path, str]] = []
    if workflow.start not in workflow.steps:
        issues.append((("start",), f"unknown step {workflow.start!r}"))
    issues += list(_step_issues(workflow))
    if issues:
        return issues
    reachable = _reachable(workflow)
    finishing = _can_finish(workflow)
    for step_id in workflow.steps:
        if step_id not in reachable:
            issues.append((("steps", step_id), f"step {step_id!r} is unreachable from start {workflow.start!r}"))
        elif step_id not in finishing:
            issues.append((("steps", step_id), f"no path of transitions leads from step {step_id!r} to $done"))
    return issues


def missing_tools(workflow: WorkflowDefinition, available: set[str]) -> dict[str, list[str]]:
    """Per step, the ``requires.tools`` the session does not have (preflight before a run)."""
    missing = {
        step_id: [tool for tool in step.requires.tools if tool not in available]
        for step_id, step in workflow.steps.items()
    }
    return {step_id: tools for step_id, tools in missing.items() if tools}
