"""The safe-output tools inside a real agent session (scripted model): a refusal comes back to the
model as an error tool result, and only accepted calls leave records. The harness wiring itself
(registering these tools) is not part of this module."""

from __future__ import annotations

from pathlib import Path

from aw_action.agent.hooks import NullHooks
from aw_action.agent.session import AgentSession
from aw_action.agent.tools import ToolContext
from aw_action.agent.transcript import Transcript
from aw_action.ai.catalog import resolve_model
from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import ToolResultMessage
from aw_action.safe_outputs import safe_output_tools
from tests.safe_outputs.support import records


async def test_the_model_sees_refusals_and_only_accepted_calls_are_recorded(tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = {"create-issue": {"max": 1}, "add-labels": {"allowed": ["bug"]}}
    tools = safe_output_tools(config, out, tmp_path, env={})
    turns = [
        {"tool_calls": [{"name": "create_issue", "arguments": {"title": "First", "body": "b"}}]},
        {
            "tool_calls": [
                {"name": "create_issue", "arguments": {"title": "Second", "body": "b"}},
                {"name": "add_labels", "arguments": {"labels": ["urgent"]}},
                {"name": "create_issue", "arguments": {"title": "Third", "body": "b", "assignees": ["me"]}},
            ]
        },
        {"text": "Done."},
    ]
    model = resolve_model("faux/scripted")
    provider = FauxProvider(turns)
    session = AgentSession(
        model=model,
        resolve_provider=lambda m: provider,
        tools=tools,
        system_prompt="s",
        hooks=NullHooks(),
        tool_context=ToolContext(cwd=tmp_path, output_dir=out),
        transcript=Transcript(tmp_path / "session.jsonl", session_id="s", cwd=str(tmp_path), model=model.ref),
    )
    await session.prompt("go")
    results = [m for m in session.messages if isinstance(m, ToolResultMessage)]
    assert [r.is_error for r in results] == [False, True, True, True]
    assert "limit reached: 1 of 1 create_issue" in results[1].text
    assert "label 'urgent' is not allowed" in results[2].text
    assert "Additional properties are not allowed" in results[3].text
    assert records(out) == [{"type": "create_issue", "title": "First", "body": "b"}]
