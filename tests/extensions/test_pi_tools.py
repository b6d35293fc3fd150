"""Extensions keep Pi's tool signature, ``execute(tool_call_id, args, signal, on_update, ctx)``:
the extension API adapts such a tool when it is registered, and inside the harness the call
travels as one ``ToolInvocation`` (``agent/tools.py``, ``extensions/pi_tools.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolInvocation, ToolResult
from aw_action.extensions.pi_tools import PiTool, as_agent_tool
from tests.conftest import base_env, run_cli, write_run_files

PI_EXTENSION = """
import json
from aw_action.agent.tools import ToolResult

class Probe:
    name = "probe"
    description = "says what it was called with"
    parameters = {"type": "object", "properties": {"word": {"type": "string"}}, "required": ["word"]}

    async def execute(self, tool_call_id, args, signal, on_update, ctx):
        await on_update(ToolResult.text("half way"))
        seen = {
            "tool_call_id": tool_call_id,
            "args": args,
            "signal_aborted": signal.aborted,
            "on_update": callable(on_update),
            "cwd": str(ctx.cwd),
        }
        return ToolResult.text("probe saw " + json.dumps(seen, sort_keys=True))

def setup(api):
    api.register_tool(Probe())
"""


def test_an_extension_tool_in_pis_signature_gets_the_models_call_and_its_result_reaches_the_model(
    tmp_path: Path,
) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "probe_ext.py").write_text(PI_EXTENSION)
    script = [
        {"tool_calls": [{"id": "call-probe-1", "name": "probe", "arguments": {"word": "hello"}}]},
        {"text": "done"},
    ]
    config = {"engine": {"model": "faux/scripted"}, "harness": {"extensions": ["./probe_ext.py"]}}
    c, p = write_run_files(tmp_path, config, script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    entries = [json.loads(line) for line in (run.output_dir / "session.jsonl").read_text().splitlines()]
    messages = [e["message"] for e in entries if e["type"] == "message"]
    [result] = [m for m in messages if m["role"] == "toolResult"]
    assert result["tool_call_id"] == "call-probe-1" and not result["is_error"]
    text = result["content"][0]["text"]
    assert text.startswith("probe saw ")
    seen = json.loads(text.removeprefix("probe saw "))
    assert seen == {
        "tool_call_id": "call-probe-1",
        "args": {"word": "hello"},
        "signal_aborted": False,
        "on_update": True,
        "cwd": seen["cwd"],
    }
    assert Path(seen["cwd"]).name == "ws"
    # the next request carried the result: the model answered after it
    assert messages[-1]["role"] == "assistant" and messages[-1]["content"][0]["text"] == "done"


class _Native:
    name, description, parameters = "native", "one argument", {"type": "object"}

    async def execute(self, call: ToolInvocation) -> ToolResult:
        return ToolResult.text(call.id)


class _Pi:
    name, description, parameters = "pi", "five arguments", {"type": "object"}
    execution_mode = "sequential"

    async def execute(self, tool_call_id: str, args: Any, signal: Any, on_update: Any, ctx: Any) -> ToolResult:
        return ToolResult.text(tool_call_id)


class _Odd:
    name, description, parameters = "odd", "three arguments", {"type": "object"}

    async def execute(self, a: Any, b: Any, c: Any) -> ToolResult:
        return ToolResult.text("never")


def test_registration_adapts_pis_signature_and_leaves_the_harnesss_alone() -> None:
    native = _Native()
    assert as_agent_tool(native) is native
    adapted = as_agent_tool(_Pi())
    assert isinstance(adapted, PiTool) and adapted.name == "pi"
    assert getattr(adapted, "execution_mode", None) == "sequential", "the tool's own attributes read through"
    with pytest.raises(TypeError, match="Pi's signature is execute"):
        as_agent_tool(_Odd())
