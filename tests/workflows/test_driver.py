"""The driver end to end: first with a scripted fake ``StepRunner``, then with the runner the harness
uses (``ContextStepRunner`` over a ``RunContext``) on the scripted ``faux`` provider, real tools (bash
runs real subprocesses) and a checkpoint on disk between the two halves of a paused run."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.session import AgentSession
from aw_action.agent.tools import ToolContext, ToolInvocation, ToolResult
from aw_action.ai.catalog import resolve_model
from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import AbortSignal, ToolResultMessage
from aw_action.extensions.api import HostServices
from aw_action.extensions.registry import Registry
from aw_action.extensions.runner import ExtensionRunner
from aw_action.harness.context import RunContext
from aw_action.harness.step_runner import ContextStepRunner
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.sinks.jsonl import JsonlSink
from aw_action.tools.bash import BashTool
from aw_action.tools.read import ReadTool
from aw_action.tools.write import WriteTool
from aw_action.workflows import (
    COMPLETION_TOOL,
    GateDecision,
    LoadedWorkflow,
    StepRequest,
    StepResult,
    WorkflowRun,
    audit_record,
    make_checkpoint,
    prepare_resume,
    read_checkpoint,
    start_run,
    write_checkpoint,
)
from aw_action.workflows import (
    RunState as WorkflowState,
)
from aw_action.workflows.checkpoint import messages_from_json, messages_to_json
from tests.workflows.support import fix_workflow

# ---- a scripted fake runner ---------------------------------------------------------------------


@dataclass
class FakeRunner:
    """Plays one action per prompt: ``("complete", outcome, summary, artifact?)``, ``("stop",)``
    or ``("fail", error)``. A completion goes through the request's guard and tool like a model's."""

    actions: list[tuple[Any, ...]]
    requests: list[StepRequest] = field(default_factory=list)

    async def run_step(self, request: StepRequest) -> StepResult:
        self.requests.append(request)
        action = self.actions.pop(0)
        if action[0] == "fail":
            return StepResult("failed", action[1])
        if action[0] == "complete":
            args = {"outcome": action[1], "summary": action[2]}
            if len(action) > 3:
                args["artifact"] = action[3]
            request.guard.observe_batch([("c1", COMPLETION_TOOL)])
            assert request.guard.authorize("c1", COMPLETION_TOOL, args).allowed

            async def no_update(_: ToolResult) -> None:
                return None

            ctx = ToolContext(cwd=Path("."), output_dir=Path("."))
            await request.completion_tool.execute(ToolInvocation("c1", args, AbortSignal(), no_update, ctx))
        return StepResult("stopped")


@pytest.fixture
def wf(tmp_path: Path) -> LoadedWorkflow:
    return fix_workflow(tmp_path / "wf")


def test_a_run_pauses_at_the_gate_and_finishes_after_approval_across_a_checkpoint(
    wf: LoadedWorkflow, tmp_path: Path
) -> None:
    import asyncio

    checkpoint = tmp_path / "out" / "workflow-checkpoint.json"
    saved: list[WorkflowState] = []

    def save(state: WorkflowState) -> None:
        saved.append(state)
        write_checkpoint(checkpoint, make_checkpoint(wf, state))

    first = FakeRunner([("complete", "ready", "Bug in parser.py"), ("complete", "submit", "Plan ready", "# Plan")])
    state = asyncio.run(WorkflowRun(wf, start_run(wf, "run-1", "issue #7"), first, save=save).run())
    assert state.status == "paused" and state.pending_gate is not None
    assert [r.step_id for r in first.requests] == ["inspect", "plan"]
    assert first.requests[0].tools == ("read", "bash", COMPLETION_TOOL)
    assert first.requests[1].tools == ("read", COMPLETION_TOOL)
    assert "Plan for issue #7." in first.requests[1].prompt and "Handoff: Bug in parser.py" in first.requests[1].prompt
    assert len(saved) == 2 and read_checkpoint(checkpoint).state == state

    stored = read_checkpoint(checkpoint)
    resumed = prepare_resume(wf, stored.state, GateDecision(approved=True)).state
    second = FakeRunner([("complete", "done", "Implemented"), ("complete", "passed", "All green")])
    final = asyncio.run(WorkflowRun(wf, resumed, second, save=save).run())
    assert final.status == "done"
    assert "Implement the approved plan:\n# Plan" in second.requests[0].prompt
    assert [p["step"] for p in audit_record(final)["path"]] == ["inspect", "plan", "implement", "verify"]
    assert read_checkpoint(checkpoint).state.status == "done"


async def test_a_prompt_without_completion_gets_reminders_then_pauses(wf: LoadedWorkflow) -> None:
    runner = FakeRunner([("stop",), ("stop",), ("complete", "ready", "found it"), ("fail", "end of script")])
    state = await WorkflowRun(wf, start_run(wf, "r", "x"), runner, max_reminders=2).run()
    assert [r.reminder for r in runner.requests[:3]] == [False, True, True]
    assert "without finishing the workflow step 'inspect'" in runner.requests[1].prompt
    assert state.current_step == "plan"

    stubborn = FakeRunner([("stop",)] * 3)
    paused = await WorkflowRun(wf, start_run(wf, "r", "x"), stubborn, max_reminders=2).run()
    assert paused.pause is not None and paused.pause.kind == "failed"
    assert "ended 3 times without workflow_complete_step" in paused.pause.reason


async def test_a_failed_prompt_pauses_the_run_and_resume_reruns_the_step(wf: LoadedWorkflow) -> None:
    paused = await WorkflowRun(wf, start_run(wf, "r", "x"), FakeRunner([("fail", "budget exceeded")])).run()
    assert paused.pause is not None and paused.pause.reason == "step 'inspect' stopped: budget exceeded"
    again = FakeRunner([("complete", "ready", "found"), ("complete", "blocked", "need the spec")])
    state = await WorkflowRun(wf, prepare_resume(wf, paused).state, again).run()
    assert [r.step_id for r in again.requests] == ["inspect", "plan"]
    assert state.pause is not None and state.pause.kind == "requested"


async def test_the_loop_guard_stops_a_run_that_keeps_failing_verification(wf: LoadedWorkflow) -> None:
    state = start_run(wf, "r", "x")
    runner = FakeRunner(
        [("complete", "ready", "a"), ("complete", "submit", "p", "# P")]
        + [("complete", "done", "impl"), ("complete", "failed", "still red")] * 3
    )
    state = await WorkflowRun(wf, state, runner).run()
    state = await WorkflowRun(wf, prepare_resume(wf, state, GateDecision(approved=True)).state, runner).run()
    assert state.pause is not None and state.pause.kind == "loop_guard"
    assert state.current_step == "implement" and state.visits["implement"] == 4


# ---- a real run on the scripted provider ---------------------------------------------------------


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def _context(tmp_path: Path, turns: list[dict[str, Any]]) -> tuple[RunContext, FauxProvider]:
    """A run as the harness assembles it, with the real tools and no extension but the runner."""
    provider = FauxProvider(turns)
    model = resolve_model("faux/scripted")
    config = RunConfig.model_validate({"engine": {"model": model.ref}})
    state = RunState.for_model(model.ref)
    redactor = Redactor([])
    jsonl = JsonlSink(redactor, io.StringIO())
    repo, out = tmp_path / "repo", tmp_path / "out"
    box: list[ExtensionRunner] = []
    services = HostServices(
        config=config,
        model=model,
        state=state,
        env={},
        output_dir=out,
        workspace=repo,
        registry=Registry(),
        post=lambda e: box[0].post(e),
        redactor=redactor,
        jsonl=jsonl,
        config_dir=tmp_path,
    )
    runner = ExtensionRunner(services)
    box.append(runner)
    session = AgentSession(
        model=model,
        resolve_provider=lambda _: provider,
        tools=[ReadTool(), BashTool(), WriteTool()],
        hooks=runner,
        tool_context=ToolContext(cwd=repo, output_dir=out),
    )
    runner.bind(session)
    context = RunContext(
        config=config,
        env={},
        output_dir=out,
        workspace=repo,
        redactor=redactor,
        jsonl=jsonl,
        state=state,
        services=services,
        runner=runner,
        session=session,
    )
    return context, provider


def _results(session: AgentSession) -> list[ToolResultMessage]:
    return [m for m in session.messages if isinstance(m, ToolResultMessage)]


async def test_a_real_run_runs_steps_with_narrowed_tools_and_resumes_from_a_checkpoint(
    wf: LoadedWorkflow, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "parser.py").write_text("def parse(): return 1\n")
    turns = [
        # inspect: an allowed command, a refused one, a completion mixed into a batch, then alone
        {"tool_calls": [_call("bash", command="ls -1"), _call("bash", command="python3 -c 'print(1)'")]},
        {"tool_calls": [_call("read", path="parser.py"), _call(COMPLETION_TOOL, outcome="ready", summary="x")]},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="ready", summary="parse() returns 1")]},
        # plan: write is not a tool of this step; then submit for review
        {"tool_calls": [_call("write", path="plan.md", content="sneaky")]},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="submit", summary="Plan", artifact="# Plan\nfix parse")]},
    ]
    context, provider = _context(tmp_path, turns)
    session = context.session
    checkpoint = tmp_path / "out" / "workflow-checkpoint.json"

    def save(state: WorkflowState) -> None:
        write_checkpoint(checkpoint, make_checkpoint(wf, state, messages=messages_to_json(session.messages)))

    runner = ContextStepRunner(context)
    state = await WorkflowRun(wf, start_run(wf, "run-1", "issue #7"), runner, save=save).run()
    assert state.status == "paused" and state.pending_gate is not None
    assert state.pending_gate.artifact == "# Plan\nfix parse"
    assert len(provider.requests) == 5, "each step's prompt ends with the turn that completed it"
    results = _results(session)
    texts = [(r.tool_name, r.is_error, r.content[0].text if r.content else "") for r in results]
    assert texts[0][:2] == ("bash", False) and "parser.py" in texts[0][2]
    assert texts[1][:2] == ("bash", True) and "'python3' is not an allowed executable" in texts[1][2]
    assert texts[2][:2] == ("read", False)
    assert texts[3][:2] == (COMPLETION_TOOL, True) and "must be the only tool call" in texts[3][2]
    assert texts[4][:2] == (COMPLETION_TOOL, False)
    assert texts[5] == (
        "write",
        True,
        "tool 'write' is not allowed in step 'plan' (allowed: read, workflow_complete_step)",
    )
    assert not (repo / "plan.md").exists()
    assert sorted(t.name for t in provider.requests[3].tools) == ["read", COMPLETION_TOOL]
    assert sorted(t.name for t in provider.requests[0].tools) == sorted(["read", "bash", COMPLETION_TOOL])

    # a later job: a new run, history restored from the checkpoint, the reviewer approves
    stored = read_checkpoint(checkpoint)
    resumed = prepare_resume(wf, stored.state, GateDecision(approved=True, feedback="Ship it")).state
    later_turns = [
        {"tool_calls": [_call("bash", command="git status")]},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="done", summary="Fixed parse()")]},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="passed", summary="Verified")]},
    ]
    context2, provider2 = _context(tmp_path, later_turns)
    session2 = context2.session
    assert stored.messages is not None
    session2.replace_messages(messages_from_json(stored.messages), "resume")
    final = await WorkflowRun(wf, resumed, ContextStepRunner(context2), save=save).run()
    assert final.status == "done"
    first_prompt = provider2.requests[0].messages[-1]
    assert "Implement the approved plan:\n# Plan\nfix parse" in first_prompt.content[0].text
    assert len(provider2.requests[0].messages) > len(stored.messages)  # the old conversation came along
    git = _results(session2)[0]
    assert git.tool_name == "bash" and not any(
        "not allowed" in c.text for c in git.content
    )  # allowed by the policy (git itself may fail: no repository)
    assert isinstance(session2.messages[-1], ToolResultMessage), "the verify step ended with its completion"
    assert [p["step"] for p in audit_record(final)["path"]] == ["inspect", "plan", "implement", "verify"]
