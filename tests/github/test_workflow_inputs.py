"""The workflow inputs of the action become a WorkflowRequest, and every inconsistent combination
is an error naming one input (``github/workflow_inputs.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from aw_action.github.action_inputs import ActionInputError, ActionInputs, env_name
from aw_action.github.plan import RunPlan, build_plan
from aw_action.workflows.request import WorkflowRequest
from aw_action.workflows.resume import GateDecision

PlanOf = Callable[..., RunPlan]


def request(plan: RunPlan) -> WorkflowRequest:
    assert plan.workflow is not None
    return plan.workflow


@pytest.fixture
def plan_of(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> PlanOf:
    for name in list(os.environ):
        if name.upper().startswith("INPUT_"):
            monkeypatch.delenv(name)
    (tmp_path / "task.txt").write_text("Draft the notes.\n")

    def build(**inputs: str) -> RunPlan:
        for key, value in {"model": "faux/scripted", **inputs}.items():
            monkeypatch.setenv(env_name(key.replace("_", "-")), value)
        env = {"GITHUB_WORKSPACE": str(tmp_path), "AW_OUTPUT_DIR": str(tmp_path / "out")}
        return build_plan(ActionInputs.from_env(), env, tmp_path)

    return build


def test_without_workflow_the_plan_is_a_plain_run(plan_of: PlanOf) -> None:
    assert plan_of(prompt="hello").workflow is None


def test_a_new_run_takes_its_input_from_the_prompt_or_the_prompt_file(plan_of: PlanOf) -> None:
    inline = request(plan_of(workflow="wf.yml", prompt="Draft the notes."))
    assert inline.workflow == Path("wf.yml") and inline.input == "Draft the notes.\n" and inline.checkpoint is None
    from_file = request(plan_of(workflow="wf.yml", prompt="", prompt_file="task.txt"))
    assert from_file.input == "Draft the notes.\n"


def test_a_resume_carries_the_checkpoint_and_the_decision(plan_of: PlanOf) -> None:
    resume = request(plan_of(workflow="wf.yml", workflow_checkpoint="prev/cp.json", workflow_decision="approve"))
    assert resume.checkpoint == Path("prev/cp.json") and resume.decision == GateDecision(True, "")
    changes = request(plan_of(workflow_decision="request-changes", workflow_feedback="Shorter, please"))
    assert changes.decision == GateDecision(False, "Shorter, please")
    assert request(plan_of(workflow_decision="continue", workflow_feedback="")).decision is None
    assert resume.approvals_withheld is None, "outside GitHub Actions the checkpoint is the person's own file"


@pytest.mark.parametrize(
    ("inputs", "blamed", "fragment"),
    [
        ({"workflow_checkpoint": "cp.json"}, "workflow", "required when workflow-checkpoint is set"),
        ({"workflow_decision": "approve"}, "workflow", "required when workflow-decision is set"),
        ({"workflow": "wf.yml"}, "prompt", "the workflow's input"),
        ({"workflow": "wf.yml", "prompt": "x", "workflow_decision": "approve"}, "workflow-decision", "only used with"),
        ({"workflow": "wf.yml", "workflow_checkpoint": "cp.json", "prompt": "x"}, "prompt", "from the checkpoint"),
        (
            {"workflow": "wf.yml", "workflow_checkpoint": "cp.json", "workflow_decision": "request-changes"},
            "workflow-feedback",
            "required with workflow-decision: request-changes",
        ),
        (
            {"workflow": "wf.yml", "prompt": "x", "workflow_checkpoint_run": "12"},
            "workflow-checkpoint-run",
            "only used with workflow-checkpoint",
        ),
        (
            {"workflow": "wf.yml", "workflow_checkpoint": "cp.json", "workflow_checkpoint_run": "12; rm"},
            "workflow-checkpoint-run",
            "not a workflow run id",
        ),
        (
            {"workflow": "wf.yml", "workflow_checkpoint": "cp.json", "workflow_feedback": "note"},
            "workflow-feedback",
            "only used with",
        ),
    ],
)
def test_inconsistent_inputs_name_the_input(
    plan_of: PlanOf, inputs: dict[str, str], blamed: str, fragment: str
) -> None:
    with pytest.raises(ActionInputError) as info:
        plan_of(**inputs)
    assert info.value.input == blamed and fragment in info.value.message


def test_an_unknown_decision_is_refused(plan_of: PlanOf) -> None:
    with pytest.raises(ActionInputError) as info:
        plan_of(workflow="wf.yml", workflow_checkpoint="cp.json", workflow_decision="yes")
    assert info.value.input == "workflow-decision"
