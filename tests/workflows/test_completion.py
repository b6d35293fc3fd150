"""The completion tool and per-step authorisation.

Rules from pi-workflows (seed 004 "Security model"; src/function/policy/completion-batch.ts and
tool-auth.ts): completion is the sole call of its message, the outcome must be declared, every
other call is authorised against the step's tools and bash policy.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aw_action.agent.tools import ToolContext, ToolError, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.workflows import (
    COMPLETION_TOOL,
    CompleteStepTool,
    LoadedWorkflow,
    StepCompletion,
    StepGuard,
    authorize_tool_call,
    check_completion,
    complete_step,
    completion_batch_rejections,
    start_run,
)
from tests.workflows.support import fix_workflow


@pytest.fixture
def wf(tmp_path: Path) -> LoadedWorkflow:
    return fix_workflow(tmp_path)


def _tool(wf: LoadedWorkflow, step_id: str = "inspect") -> CompleteStepTool:
    state = start_run(wf, "r", "x")
    if step_id == "plan":
        state = complete_step(wf, state, "ready", "handoff")

    def check(c: StepCompletion) -> str | None:
        return check_completion(wf, state, c.outcome, c.summary, c.artifact)

    return CompleteStepTool(step_id, wf.definition.steps[step_id].outcomes(), check)


async def _call(tool: CompleteStepTool, args: dict[str, Any], tmp_path: Path) -> ToolResult:
    async def no_update(_: ToolResult) -> None:
        return None

    return await tool.execute(
        ToolInvocation("c1", args, AbortSignal(), no_update, ToolContext(cwd=tmp_path, output_dir=tmp_path))
    )


async def test_given_a_declared_outcome_then_the_completion_is_recorded(wf: LoadedWorkflow, tmp_path: Path) -> None:
    tool = _tool(wf)
    result = await _call(tool, {"outcome": "ready", "summary": "Found it"}, tmp_path)
    assert tool.completion == StepCompletion("inspect", "ready", "Found it", None)
    assert "Recorded outcome 'ready' for step 'inspect'" in result.content[0].text
    assert "End your turn now" in result.content[0].text


async def test_given_a_second_completion_then_it_is_refused(wf: LoadedWorkflow, tmp_path: Path) -> None:
    tool = _tool(wf)
    await _call(tool, {"outcome": "ready", "summary": "Found it"}, tmp_path)
    with pytest.raises(ToolError, match="already complete"):
        await _call(tool, {"outcome": "blocked", "summary": "changed my mind"}, tmp_path)
    assert tool.completion is not None and tool.completion.outcome == "ready"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"outcome": "approved", "summary": "x"}, "not declared by step 'plan'"),
        ({"outcome": "submit", "summary": "x"}, "put the full content in 'artifact'"),
        ({"outcome": "blocked", "summary": " "}, "summary must not be empty"),
    ],
)
async def test_given_a_refused_completion_then_the_model_reads_why_and_nothing_is_recorded(
    wf: LoadedWorkflow, tmp_path: Path, args: dict[str, Any], reason: str
) -> None:
    tool = _tool(wf, "plan")
    with pytest.raises(ToolError, match=reason):
        await _call(tool, args, tmp_path)
    assert tool.completion is None


def test_the_tool_schema_lists_only_the_steps_own_outcomes(wf: LoadedWorkflow) -> None:
    tool = _tool(wf, "plan")
    assert tool.name == COMPLETION_TOOL
    assert tool.parameters["properties"]["outcome"]["enum"] == ["blocked", "submit"]
    jsonschema.validate({"outcome": "submit", "summary": "s", "artifact": "a"}, tool.parameters)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"outcome": "approved", "summary": "s"}, tool.parameters)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"outcome": "submit", "summary": "s", "extra": 1}, tool.parameters)


@pytest.mark.parametrize(
    ("calls", "rejected"),
    [
        ([("1", COMPLETION_TOOL)], set()),
        ([("1", "read")], set()),
        ([("1", "read"), ("2", COMPLETION_TOOL)], {"2"}),
        ([("1", COMPLETION_TOOL), ("2", "bash")], {"1"}),
        ([("1", COMPLETION_TOOL), ("2", COMPLETION_TOOL)], {"1", "2"}),
        ([("1", "read"), ("2", "bash")], set()),
        ([], set()),
    ],
)
def test_completion_must_be_the_only_call_of_its_message(calls: list[tuple[str, str]], rejected: set[str]) -> None:
    rejections = completion_batch_rejections(calls)
    assert set(rejections) == rejected
    assert all("must be the only tool call" in reason for reason in rejections.values())


@pytest.mark.parametrize(
    ("step", "tool", "args", "allowed", "why"),
    [
        ("inspect", "read", {"path": "a.py"}, True, ""),
        ("inspect", "write", {"path": "a.py", "content": ""}, False, "tool 'write' is not allowed in step 'inspect'"),
        ("inspect", "edit", {}, False, "allowed: read, bash, workflow_complete_step"),
        ("inspect", "bash", {"command": "git status"}, True, ""),
        ("inspect", "bash", {"command": "git push"}, False, "bash command refused in step 'inspect'"),
        ("inspect", "bash", {"command": "python3 -c 'import os'"}, False, "not an allowed executable"),
        ("inspect", "bash", {"command": 42}, False, "without a command string"),
        ("implement", "bash", {"command": "git diff --stat"}, True, ""),
        ("implement", "bash", {"command": "cat README.md"}, False, "'cat' is not an allowed executable"),
        ("implement", "write", {"path": "a", "content": "b"}, True, ""),
        ("verify", "bash", {"command": "ls"}, False, "tool 'bash' is not allowed"),
        ("plan", COMPLETION_TOOL, {"outcome": "submit"}, True, ""),
    ],
)
def test_every_call_is_authorised_against_the_steps_tools_and_bash_policy(
    wf: LoadedWorkflow, step: str, tool: str, args: dict[str, Any], allowed: bool, why: str
) -> None:
    decision = authorize_tool_call(step, wf.definition.steps[step], tool, args, cwd="/tmp/ws")
    assert decision.allowed is allowed and why in decision.reason


async def test_the_guard_blocks_mixed_batches_and_everything_after_completion(
    wf: LoadedWorkflow, tmp_path: Path
) -> None:
    tool = _tool(wf)
    guard = StepGuard("inspect", wf.definition.steps["inspect"], tool, cwd=str(tmp_path))
    guard.observe_batch([("1", "read"), ("2", COMPLETION_TOOL)])
    assert guard.authorize("1", "read", {"path": "x"}).allowed
    assert "only tool call" in guard.authorize("2", COMPLETION_TOOL, {}).reason
    guard.observe_batch([("3", COMPLETION_TOOL)])
    assert guard.authorize("3", COMPLETION_TOOL, {}).allowed
    await _call(tool, {"outcome": "ready", "summary": "done"}, tmp_path)
    guard.observe_batch([("4", "read")])
    assert "is complete; end your turn" in guard.authorize("4", "read", {"path": "x"}).reason
