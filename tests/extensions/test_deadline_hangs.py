"""The soft deadline holds even when code the harness does not control ignores the abort.

A user handler or a user tool that never looks at the abort signal gets a short grace once the
run is aborted, then it is abandoned: the run ends with its stop reason instead of hanging until
the runner kills the job.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent import loop
from aw_action.agent.tools import ToolContext
from aw_action.ai.types import AbortSignal, ToolResultMessage
from aw_action.extensions import cost_tracker, steering
from aw_action.extensions.api import ExtensionAPI, ExtensionContext
from aw_action.extensions.pi_tools import FunctionTool
from tests.extensions.rig import ManualClock, Rig, echo_tool, make_rig

TOOL_TURN: dict[str, Any] = {"tool_calls": [{"name": "echo", "arguments": {}}]}
BOUND_S = 10.0
"""Generous: only there to turn a hang into a failure."""


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loop, "ABORT_GRACE_S", 0.05)


def builtins(clock: ManualClock) -> list[tuple[str, Any]]:
    return [("cost-tracker", cost_tracker.setup), ("steering", lambda api: steering.install(api, clock))]


async def run_past_the_deadline(rig: Rig, clock: ManualClock, started: asyncio.Event) -> str:
    run = asyncio.create_task(rig.run())
    await asyncio.wait_for(started.wait(), BOUND_S)
    clock.advance(3600)
    return await asyncio.wait_for(run, BOUND_S)


async def test_a_user_handler_that_ignores_the_abort_cannot_hold_the_run(tmp_path: Path) -> None:
    clock = ManualClock()
    started = asyncio.Event()
    script = [TOOL_TURN, {"text": "never"}]
    rig = await make_rig(tmp_path, script, builtins(clock), config={"timeout-minutes": 1}, tools=[echo_tool()])

    async def stuck(event: Any, ctx: ExtensionContext) -> None:
        started.set()
        await asyncio.sleep(3600)  # e.g. an HTTP call without a timeout

    ExtensionAPI("./stuck.py", False, rig.services).on("turn_end", stuck)
    assert await run_past_the_deadline(rig, clock, started) == "timeout"
    assert len(rig.named("timeout")) == 1 and rig.provider.calls == 1
    [warning] = [w for w in rig.named("warning") if w.get("extension") == "./stuck.py"]
    assert warning["hook"] == "turn_end" and "abort" in warning["message"]


async def test_a_tool_that_ignores_the_abort_is_abandoned(tmp_path: Path) -> None:
    clock = ManualClock()
    started = asyncio.Event()

    async def slow(call_id: str, args: dict[str, Any], signal: AbortSignal, on_update: Any, ctx: ToolContext) -> Any:
        started.set()
        await asyncio.sleep(3600)

    tool = FunctionTool("slow", "never looks at the signal", {"type": "object", "properties": {}}, slow)
    script = [{"tool_calls": [{"name": "slow", "arguments": {}}]}, {"text": "never"}]
    rig = await make_rig(tmp_path, script, builtins(clock), config={"timeout-minutes": 1}, tools=[tool])
    assert await run_past_the_deadline(rig, clock, started) == "timeout"
    [result] = [m for m in rig.session.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error and "abort" in result.text
    assert rig.provider.calls == 1


async def test_a_handler_that_finishes_within_the_grace_keeps_its_result(tmp_path: Path) -> None:
    """The grace is for stopping, not a cut-off: a user handler that is merely running when the run
    is aborted, and returns soon after, completes normally."""
    rig = await make_rig(tmp_path, [TOOL_TURN, {"text": "never"}], [], tools=[echo_tool()])
    done: list[str] = []

    async def brief(event: Any, ctx: ExtensionContext) -> None:
        ctx.abort("cancelled")
        await asyncio.sleep(0)
        done.append("finished")

    ExtensionAPI("./brief.py", False, rig.services).on("turn_end", brief)
    assert await asyncio.wait_for(rig.run(), BOUND_S) == "cancelled"
    assert done == ["finished"] and rig.named("warning") == []


async def test_a_tool_that_calls_exit_gives_an_error_result(tmp_path: Path) -> None:
    async def exits(call_id: str, args: dict[str, Any], signal: AbortSignal, on_update: Any, ctx: ToolContext) -> Any:
        raise SystemExit(3)

    tool = FunctionTool("exits", "calls sys.exit", {"type": "object", "properties": {}}, exits)
    script = [{"tool_calls": [{"name": "exits", "arguments": {}}]}, {"text": "done"}]
    rig = await make_rig(tmp_path, script, [], tools=[tool])
    assert await asyncio.wait_for(rig.run(), BOUND_S) == "completed"
    [result] = [m for m in rig.session.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error and "exit(3)" in result.text
