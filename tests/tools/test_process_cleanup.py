"""Every process the agent starts is gone when its call is stopped or the run ends (issue 10,
item 1): background jobs, ``nohup``, ``setsid`` and double-forked daemons, with real processes.

Each command records the pid of every process it started in a file per kind; the tests then
check that none of them still runs (a zombie counts as gone: it runs no code).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from aw_action.agent.tools import ToolContext, ToolError, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.tools.bash import BashTool
from aw_action.tools.processes import kill_all_agent_processes
from tests.tools.test_bash import process_gone, wait_gone

ESCAPES = (
    "sleep 1000 & echo $! > background.pid; "
    "nohup sleep 1000 >/dev/null 2>&1 & echo $! > nohup.pid; "
    "setsid sleep 1000 & echo $! > setsid.pid; "
    "( setsid sh -c 'sleep 1000 & echo $! > daemon-session.pid' & ); "  # double fork into a new session
    "( ( sleep 1000 & echo $! > daemon.pid ) & ); "  # double fork, same session, parent gone
    "env -i /bin/sh -c 'setsid sleep 1000 & echo $! > unmarked.pid' ; "  # marker wiped from env
)
"""Six ways to leave a process behind; each writes its pid to its own file."""
ALL_WRITTEN = "while [ $(ls *.pid | wc -l) -lt 6 ]; do sleep 0.05; done; "
"""Waits until every escape wrote its pid (the double forks write theirs asynchronously)."""
KINDS = ("background", "nohup", "setsid", "daemon-session", "daemon", "unmarked")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, output_dir=tmp_path / "out")


async def _ignore(result: ToolResult) -> None:
    return None


async def started(ctx: ToolContext, kinds: tuple[str, ...] = KINDS) -> dict[str, int]:
    """The pid of each kind of escaped process (the double forks write theirs asynchronously)."""
    files = {kind: ctx.cwd / f"{kind}.pid" for kind in kinds}
    for _ in range(400):
        if all(f.exists() and f.read_text().strip() for f in files.values()):
            break
        await asyncio.sleep(0.05)
    return {kind: int(f.read_text()) for kind, f in files.items()}


async def test_a_timed_out_call_leaves_no_process_behind(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="timed out"):
        args = {"command": ESCAPES + ALL_WRITTEN + "sleep 1000", "timeout": 3}
        await BashTool().execute(ToolInvocation("c", args, AbortSignal(), _ignore, ctx))
    pids = await started(ctx)
    marked = [kind for kind in KINDS if kind != "unmarked"]
    survivors = [kind for kind in marked if not await wait_gone(pids[kind])]
    # the env -i one dropped the call's marker: the subreaper keeps it in the harness's tree,
    # where the run-end sweep finds it
    unmarked_alive = not process_gone(pids["unmarked"])
    kill_all_agent_processes()  # the run ends: clean up before asserting, whatever happened
    assert survivors == [] and unmarked_alive
    assert await wait_gone(pids["unmarked"])


async def test_an_aborted_call_kills_what_left_its_process_group(ctx: ToolContext) -> None:
    signal = AbortSignal()
    task = asyncio.create_task(
        BashTool().execute(ToolInvocation("c", {"command": ESCAPES + "sleep 1000"}, signal, _ignore, ctx))
    )
    pids = await started(ctx)
    signal.abort("stop")
    with pytest.raises(ToolError, match="aborted"):
        await task
    survivors = [kind for kind in KINDS if kind != "unmarked" and not await wait_gone(pids[kind])]
    kill_all_agent_processes()
    assert survivors == []
    assert await wait_gone(pids["unmarked"])


async def test_background_processes_survive_the_call_but_not_the_run(ctx: ToolContext) -> None:
    result = await BashTool().execute(
        ToolInvocation("c", {"command": ESCAPES + "echo started"}, AbortSignal(), _ignore, ctx)
    )
    assert result.content[0].text == "started"
    pids = await started(ctx)
    assert not any(process_gone(pid) for pid in pids.values())  # a server started in one call serves the next
    assert kill_all_agent_processes() >= len(pids)
    assert all([await wait_gone(pid) for pid in pids.values()])
    assert kill_all_agent_processes() == 0  # idempotent: nothing left to kill


async def test_orphans_are_reaped_not_left_as_zombies(ctx: ToolContext) -> None:
    await BashTool().execute(
        ToolInvocation("c", {"command": "setsid sleep 1000 & echo $! > setsid.pid"}, AbortSignal(), _ignore, ctx)
    )
    pid = (await started(ctx, ("setsid",)))["setsid"]
    kill_all_agent_processes()
    assert await wait_gone(pid)
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped: no zombie left under the harness
