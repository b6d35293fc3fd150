"""The bash tool against real subprocesses: output, failures, timeout, abort, streaming, truncation."""

from __future__ import annotations

import asyncio
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext, ToolError, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.tools.bash import BashTool


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    work = tmp_path / "work"
    work.mkdir()
    return ToolContext(cwd=work, output_dir=tmp_path / "out")


class Updates:
    """An ``on_update`` callback that records the text of every partial result."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    async def __call__(self, result: ToolResult) -> None:
        self.texts.append(result.content[0].text)


async def run(
    ctx: ToolContext,
    command: str,
    *,
    tool: BashTool | None = None,
    signal: AbortSignal | None = None,
    updates: Updates | None = None,
    **args: Any,
) -> ToolResult:
    return await (tool or BashTool()).execute(
        ToolInvocation("call-1", {"command": command, **args}, signal or AbortSignal(), updates or Updates(), ctx)
    )


def text_of(result: ToolResult) -> str:
    return result.content[0].text


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (a zombie awaiting reaping counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (FileNotFoundError, IndexError):
        return True


async def wait_gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if process_gone(pid):
            return True
        await asyncio.sleep(0.05)
    return process_gone(pid)


async def test_stdout_and_stderr_are_interleaved(ctx: ToolContext) -> None:
    result = await run(ctx, "echo out; echo err >&2; echo out2")
    assert text_of(result) == "out\nerr\nout2"
    assert result.details["exit_code"] == 0
    assert result.details["truncated"] is False
    assert result.details["full_output_path"] is None


async def test_empty_output(ctx: ToolContext) -> None:
    assert text_of(await run(ctx, "true")) == "(no output)"


async def test_runs_in_cwd_with_exactly_the_given_env(tmp_path: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    env = {"AW_TEST_VAR": "hello", "PATH": os.environ["PATH"]}
    ctx = ToolContext(cwd=work, output_dir=tmp_path / "o", env=env)
    os.environ["AW_TEST_HIDDEN"] = "leak"
    try:
        result = await run(ctx, 'pwd; echo "$AW_TEST_VAR"; echo "${PATH:+has-path}"; echo "[${AW_TEST_HIDDEN:-}]"')
    finally:
        del os.environ["AW_TEST_HIDDEN"]
    cwd, var, path, hidden = text_of(result).split("\n")
    assert Path(cwd).resolve() == work.resolve()
    assert (var, path, hidden) == ("hello", "has-path", "[]")


async def test_stdin_is_empty(ctx: ToolContext) -> None:
    assert text_of(await run(ctx, "cat; echo end")) == "end"


async def test_nonzero_exit_raises_with_output(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as err:
        await run(ctx, "echo boom; exit 3")
    assert str(err.value) == "boom\n\nCommand exited with code 3"


async def test_nonzero_exit_without_output(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as err:
        await run(ctx, "exit 1")
    assert str(err.value) == "(no output)\n\nCommand exited with code 1"


async def test_invalid_utf8_is_replaced(ctx: ToolContext) -> None:
    assert text_of(await run(ctx, r"printf 'a\xffb'")) == "a\ufffdb"


async def test_missing_cwd(tmp_path: Path) -> None:
    ctx = ToolContext(cwd=tmp_path / "nope", output_dir=tmp_path / "o")
    with pytest.raises(ToolError, match="Working directory does not exist"):
        await run(ctx, "echo hi")


async def test_timeout_kills_the_process_tree(ctx: ToolContext) -> None:
    start = time.monotonic()
    with pytest.raises(ToolError) as err:
        await run(ctx, "echo begun; sleep 30 & echo $! > child.pid; sleep 30; wait", timeout=1)
    assert time.monotonic() - start < 10
    assert str(err.value) == "begun\n\nCommand timed out after 1 seconds"
    grandchild = int((ctx.cwd / "child.pid").read_text())
    assert await wait_gone(grandchild)


async def test_default_timeout_and_cap(ctx: ToolContext) -> None:
    tool = BashTool(default_timeout_s=0.5, max_timeout_s=1)
    with pytest.raises(ToolError, match=r"^Command timed out after 0\.5 seconds$"):
        await run(ctx, "sleep 30", tool=tool)
    start = time.monotonic()
    with pytest.raises(ToolError, match=r"^Command timed out after 1 seconds$"):
        await run(ctx, "sleep 30", tool=tool, timeout=100)
    assert time.monotonic() - start < 10


async def test_timeout_must_be_positive(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match="positive"):
        await run(ctx, "echo hi", timeout=0)


async def test_abort_mid_command_kills_the_tree(ctx: ToolContext) -> None:
    signal = AbortSignal()
    updates = Updates()
    task = asyncio.create_task(
        run(ctx, "sleep 30 & echo $! > child.pid; echo started; wait", signal=signal, updates=updates)
    )
    start = time.monotonic()
    while "started" not in updates.texts and time.monotonic() - start < 10:
        await asyncio.sleep(0.02)
    assert updates.texts, "no partial output arrived"
    signal.abort("user")
    with pytest.raises(ToolError) as err:
        await task
    assert time.monotonic() - start < 10
    assert str(err.value) == "started\n\nCommand aborted"
    assert await wait_gone(int((ctx.cwd / "child.pid").read_text()))


async def test_already_aborted_runs_nothing(ctx: ToolContext) -> None:
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match=r"^Command aborted$"):
        await run(ctx, "touch ran", signal=signal)
    assert not (ctx.cwd / "ran").exists()


async def test_cancellation_kills_the_tree(ctx: ToolContext) -> None:
    task = asyncio.create_task(run(ctx, "sleep 30 & echo $! > child.pid; wait"))
    pid_file = ctx.cwd / "child.pid"
    start = time.monotonic()
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() - start < 10:
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_gone(int(pid_file.read_text()))


async def test_on_update_streams_partial_output(ctx: ToolContext) -> None:
    updates = Updates()
    result = await run(ctx, "echo first; sleep 0.5; echo second", updates=updates)
    assert text_of(result) == "first\nsecond"
    assert "first" in updates.texts  # seen before the command finished
    assert updates.texts[-1] in ("first", "first\nsecond")


async def test_on_update_is_throttled(ctx: ToolContext) -> None:
    updates = Updates()
    await run(ctx, "for i in $(seq 200); do echo $i; sleep 0.005; done", updates=updates)
    assert 1 <= len(updates.texts) < 100  # ~200 chunks, at most one update per 100 ms


async def test_failing_on_update_does_not_fail_the_command(ctx: ToolContext) -> None:
    async def broken(result: ToolResult) -> None:
        raise RuntimeError("sink down")

    tool = BashTool()
    result = await tool.execute(ToolInvocation("c", {"command": "echo ok"}, AbortSignal(), broken, ctx))
    assert text_of(result) == "ok"


async def test_background_job_holding_the_pipe_does_not_block(ctx: ToolContext) -> None:
    start = time.monotonic()
    result = await run(ctx, "sleep 30 & echo $!")
    assert time.monotonic() - start < 10
    pid = int(text_of(result))
    assert not process_gone(pid)  # finishing normally leaves background jobs alone
    os.kill(pid, 9)


async def test_long_output_keeps_head_and_tail_and_saves_the_full_output(ctx: ToolContext) -> None:
    result = await run(ctx, "seq 3000")
    text = text_of(result)
    path = Path(result.details["full_output_path"])
    assert result.details["truncated"] is True
    assert (result.details["total_lines"], result.details["total_bytes"]) == (3000, 13893)
    assert path.parent == ctx.output_dir and re.fullmatch(r"bash-[0-9a-f]{16}\.log", path.name)
    head = "\n".join(str(i) for i in range(1, 129))
    tail = "\n".join(str(i) for i in range(2873, 3001))
    assert text == (
        f"{head}\n[... 2744 lines (12.5KB) omitted ...]\n{tail}\n\n"
        f"[Showing lines 1-128 and 2873-3000 of 3000. Full output: {path}]"
    )
    assert path.read_text() == "".join(f"{i}\n" for i in range(1, 3001))


async def test_byte_limit_splits_between_head_and_tail_and_spills_large_output(ctx: ToolContext) -> None:
    # 3000 lines of 100 digits (101 bytes with the newline): 303,000 bytes, well over the rolling buffer.
    result = await run(ctx, "seq 3000 | awk '{printf \"%0100d\\n\", $1}'")
    lines = [f"{i:0100d}" for i in range(1, 3001)]
    body, footer = text_of(result).split("\n\n")
    kept = body.split("\n")
    marker = kept.index(next(line for line in kept if line.startswith("[... ")))
    head, tail = kept[:marker], kept[marker + 1 :]
    assert head == lines[:50]  # 50 * 101 - 1 bytes fit in 5 KiB, 51 lines do not
    assert tail == lines[-51:]  # the tail gets the rest of the 10 KiB: 51 more lines
    assert kept[marker] == "[... 2899 lines (285.9KB) omitted ...]"
    path = Path(result.details["full_output_path"])
    assert footer == f"[Showing lines 1-50 and 2950-3000 of 3000. Full output: {path}]"
    assert path.read_text() == "".join(f"{line}\n" for line in lines)


async def test_single_huge_line_keeps_its_start_and_end(ctx: ToolContext) -> None:
    result = await run(ctx, "printf START; head -c 200000 /dev/zero | tr '\\0' a; echo END")
    text = text_of(result)
    path = result.details["full_output_path"]
    assert text.startswith("STARTaaa") and "\n[... 185.3KB omitted ...]\naaa" in text
    footer = f"[Showing the first 5.0KB and the last 5.0KB of line 1 (195.3KB). Full output: {path}]"
    assert text.endswith(f"aaaEND\n\n{footer}")
    assert Path(path).stat().st_size == 200_009


async def test_output_cut_mid_character_stays_valid_text(ctx: ToolContext) -> None:
    # 3-byte characters in one long line: both cuts fall inside characters unless they are moved.
    result = await run(ctx, "python3 -c \"print('€' * 40000)\"")
    text = text_of(result)
    assert "\ufffd" not in text
    head = text.split("\n", 1)[0]
    assert set(head) == {"€"} and len(head.encode()) <= 5 * 1024


async def test_truncated_failure_keeps_head_tail_and_footer(ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as err:
        await run(ctx, "seq 2500; exit 2")
    message = str(err.value)
    assert message.startswith("1\n2\n")
    assert re.search(
        r"\[Showing lines 1-128 and 2373-2500 of 2500\. Full output: .*\.log\]\n\nCommand exited with code 2$", message
    )


async def test_a_repeated_long_output_is_not_sent_again(ctx: ToolContext) -> None:
    tool = BashTool()
    first = await tool.execute(ToolInvocation("call-a", {"command": "seq 5000"}, AbortSignal(), Updates(), ctx))
    again = await tool.execute(ToolInvocation("call-b", {"command": "seq 5000"}, AbortSignal(), Updates(), ctx))
    other = await tool.execute(ToolInvocation("call-c", {"command": "seq 5001"}, AbortSignal(), Updates(), ctx))
    short = [
        await tool.execute(ToolInvocation(f"s{i}", {"command": "echo same"}, AbortSignal(), Updates(), ctx))
        for i in range(2)
    ]
    assert "[... " in text_of(first) and "[... " in text_of(other)
    path = again.details["full_output_path"]
    assert text_of(again) == (
        f"[Output identical to that of bash call call-a: 5000 lines, 23.3KB. Full output: {path}]"
    )
    assert again.details["repeats_call"] == "call-a"
    assert Path(path).read_text() == Path(first.details["full_output_path"]).read_text()
    assert [text_of(r) for r in short] == ["same", "same"], "short outputs are always sent"


def test_schema_and_description() -> None:
    tool = BashTool(default_timeout_s=60, max_timeout_s=300)
    assert tool.name == "bash"
    assert tool.parameters["required"] == ["command"]
    assert set(tool.parameters["properties"]) == {"command", "timeout"}
    assert "default 60" in tool.description and "max 300" in tool.description
    with pytest.raises(ValueError):
        BashTool(default_timeout_s=10, max_timeout_s=5)
