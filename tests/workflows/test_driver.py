"""The driver end to end: first with a scripted fake ``StepRunner``, then with a real
``AgentSession`` on the scripted ``faux`` provider, real tools (bash runs real subprocesses) and a
checkpoint on disk between the two halves of a paused run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.hooks import NullHooks
from aw_action.agent.session import AgentSession
from aw_action.agent.tools import ToolContext, ToolResult
from aw_action.ai.catalog import resolve_model
from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import AbortSignal, AssistantMessage, ToolResultMessage
from aw_action.tools.bash import BashTool
from aw_action.tools.read import ReadTool
from aw_action.tools.write import WriteTool
from aw_action.workflows import (
    COMPLETION_TOOL,
    GateDecision,
    LoadedWorkflow,
    RunState,
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
from aw_action.workflows.checkpoint import messages_from_json, messages_to_json
from aw_action.workflows.session_runner import SessionStepRunner
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
            await request.completion_tool.execute("c1", args, AbortSignal(), no_update, ctx)
        return StepResult("stopped")


@pytest.fixture
def wf(tmp_path: Path) -> LoadedWorkflow:
    return fix_workflow(tmp_path / "wf")


def test_a_run_pauses_at_the_gate_and_finishes_after_approval_across_a_checkpoint(
    wf: LoadedWorkflow, tmp_path: Path
) -> None:
    import asyncio

    checkpoint = tmp_path / "out" / "workflow-checkpoint.json"
    saved: list[RunState] = []

    def save(state: RunState) -> None:
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


# ---- a real AgentSession on the scripted provider ---------------------------------------------------


def _call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


def _session(tmp_path: Path, turns: list[dict[str, Any]]) -> tuple[AgentSession, FauxProvider]:
    provider = FauxProvider(turns)
    session = AgentSession(
        model=resolve_model("faux/scripted"),
        resolve_provider=lambda _: provider,
        tools=[ReadTool(), BashTool(), WriteTool()],
        hooks=NullHooks(),
        tool_context=ToolContext(cwd=tmp_path / "repo", output_dir=tmp_path / "out"),
    )
    return session, provider


def _results(session: AgentSession) -> list[ToolResultMessage]:
    return [m for m in session.messages if isinstance(m, ToolResultMessage)]


async def test_a_real_session_runs_steps_with_narrowed_tools_and_resumes_from_a_checkpoint(
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
        {"tool_calls": [_call("bash", command="ls")]},  # after completion: refused
        {"text": "Inspected."},
        # plan: write is not a tool of this step; then submit for review
        {"tool_calls": [_call("write", path="plan.md", content="sneaky")]},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="submit", summary="Plan", artifact="# Plan\nfix parse")]},
        {"text": "Submitted."},
    ]
    session, provider = _session(tmp_path, turns)
    checkpoint = tmp_path / "out" / "workflow-checkpoint.json"

    def save(state: RunState) -> None:
        write_checkpoint(checkpoint, make_checkpoint(wf, state, messages=messages_to_json(session.messages)))

    state = await WorkflowRun(wf, start_run(wf, "run-1", "issue #7"), SessionStepRunner(session), save=save).run()
    assert state.status == "paused" and state.pending_gate is not None
    assert state.pending_gate.artifact == "# Plan\nfix parse"
    results = _results(session)
    texts = [(r.tool_name, r.is_error, r.content[0].text if r.content else "") for r in results]
    assert texts[0][:2] == ("bash", False) and "parser.py" in texts[0][2]
    assert texts[1][:2] == ("bash", True) and "'python3' is not an allowed executable" in texts[1][2]
    assert texts[2][:2] == ("read", False)
    assert texts[3][:2] == (COMPLETION_TOOL, True) and "must be the only tool call" in texts[3][2]
    assert texts[4][:2] == (COMPLETION_TOOL, False)
    assert texts[5][:2] == ("bash", True) and "is complete; end your turn" in texts[5][2]
    assert texts[6] == ("write", True, "Tool write not found")
    assert not (repo / "plan.md").exists()
    plan_request = provider.requests[5]
    assert sorted(t.name for t in plan_request.tools) == ["read", COMPLETION_TOOL]
    assert provider.requests[0].tools[-1].name == COMPLETION_TOOL

    # a later job: new session, history restored from the checkpoint, the reviewer approves
    stored = read_checkpoint(checkpoint)
    resumed = prepare_resume(wf, stored.state, GateDecision(approved=True, feedback="Ship it")).state
    later_turns = [
        {"tool_calls": [_call("bash", command="git status")]},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="done", summary="Fixed parse()")]},
        {"text": "Implemented."},
        {"tool_calls": [_call(COMPLETION_TOOL, outcome="passed", summary="Verified")]},
        {"text": "Verified."},
    ]
    session2, provider2 = _session(tmp_path, later_turns)
    assert stored.messages is not None
    session2.replace_messages(messages_from_json(stored.messages), "resume")
    final = await WorkflowRun(wf, resumed, SessionStepRunner(session2), save=save).run()
    assert final.status == "done"
    first_prompt = provider2.requests[0].messages[-1]
    assert "Implement the approved plan:\n# Plan\nfix parse" in first_prompt.content[0].text
    assert len(provider2.requests[0].messages) > len(stored.messages)  # the old conversation came along
    git = _results(session2)[0]
    assert git.tool_name == "bash" and not any(
        "not allowed" in c.text for c in git.content
    )  # allowed by the policy (git itself may fail: no repository)
    assert isinstance(session2.messages[-1], AssistantMessage)
    assert [p["step"] for p in audit_record(final)["path"]] == ["inspect", "plan", "implement", "verify"]
