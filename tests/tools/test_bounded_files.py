"""Tools never block on, or load, what they should not (issue 10, items 1 and 4).

FIFOs, sockets and devices are refused at once; big files are streamed, so memory holds what
is returned, not what is on disk (checked with tracemalloc: Python allocations, deterministic;
the RSS figures are in ``bench/bench_bounded_memory.py``). Every potentially blocking call runs
under a generous ``wait_for`` guard so that a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import os
import socket
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext, ToolError, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.tools import bash, bash_output
from aw_action.tools.bash import BashTool
from aw_action.tools.edit import MAX_EDIT_BYTES, EditTool
from aw_action.tools.read import ReadTool
from aw_action.tools.write import WriteTool

GUARD_S = 60.0
"""A hang guard, not a timing assertion: far above what any of these takes under load."""


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    (tmp_path / "out").mkdir()
    return ToolContext(cwd=tmp_path, output_dir=tmp_path / "out")


async def _ignore(result: ToolResult) -> None:
    return None


async def call(tool: Any, ctx: ToolContext, **args: Any) -> str:
    result = await asyncio.wait_for(tool.execute(ToolInvocation("c", args, AbortSignal(), _ignore, ctx)), GUARD_S)
    text: str = result.content[0].text
    return text


def sparse(path: Path, head: bytes, size: int) -> Path:
    with path.open("wb") as f:
        f.write(head)
        f.truncate(size)
    return path


async def test_read_refuses_a_fifo_without_a_writer_at_once(ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    with pytest.raises(ToolError, match=r"pipe: it is a FIFO \(named pipe\), not a regular file"):
        await call(ReadTool(), ctx, path="pipe")


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/null", "/dev/urandom"])
async def test_read_refuses_devices_even_through_a_symlink(ctx: ToolContext, target: str) -> None:
    (ctx.cwd / "link").symlink_to(target)
    for path in (target, "link"):
        with pytest.raises(ToolError, match="character device"):
            await call(ReadTool(), ctx, path=path)


async def test_read_refuses_a_socket(ctx: ToolContext) -> None:
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(ctx.cwd / "sock"))
        server.listen()
        with pytest.raises(ToolError, match="socket"):
            await call(ReadTool(), ctx, path="sock")


async def peak_of(coro: Any) -> tuple[Any, int]:
    """The awaited value (or the exception) and the peak of Python allocations meanwhile."""
    tracemalloc.start()
    try:
        try:
            value: Any = await coro
        except ToolError as exc:
            value = exc
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


async def test_first_lines_of_a_2gb_sparse_file_in_constant_memory(ctx: ToolContext) -> None:
    head = "".join(f"line {i:05d} of a long log\n" for i in range(1, 1001)).encode()  # 26 KB of text, then a hole
    sparse(ctx.cwd / "big.img", head, 2 * 1024**3)
    text, peak = await peak_of(call(ReadTool(), ctx, path="big.img"))
    body, notice = text.split("\n\n")
    assert body.split("\n") == [f"line {i:05d} of a long log" for i in range(1, 1001)]
    assert notice == "[Showing lines 1-1000 of at least 1001 (50.0KB limit). Use offset=1001 to continue.]"
    assert peak < 16 * 1024 * 1024  # a read chunk and the returned lines, not the file


async def test_a_2gb_file_that_starts_binary_is_refused_without_loading_it(ctx: ToolContext) -> None:
    sparse(ctx.cwd / "disk.img", b"MBR\n", 2 * 1024**3)
    error, peak = await peak_of(call(ReadTool(), ctx, path="disk.img"))
    assert isinstance(error, ToolError) and "binary file" in str(error)
    assert peak < 16 * 1024 * 1024


async def test_a_huge_single_line_is_reported_not_loaded(ctx: ToolContext) -> None:
    (ctx.cwd / "one.txt").write_bytes(b"x" * (3 * 1024 * 1024))
    text = await call(ReadTool(), ctx, path="one.txt")
    assert text.startswith("[Line 1 is 3.0MB, exceeds 50.0KB limit.")


async def test_counting_stops_at_the_budget_and_says_at_least(ctx: ToolContext, monkeypatch: Any) -> None:
    from aw_action.tools import read

    monkeypatch.setattr(read, "COUNT_BUDGET", 64 * 1024)
    (ctx.cwd / "many.txt").write_text("".join(f"{i}\n" for i in range(100_000)))
    text = await call(ReadTool(), ctx, path="many.txt", limit=3)
    body, notice = text.split("\n\n")
    assert body == "0\n1\n2"
    assert notice.startswith("[") and "+ more lines in file. Use offset=4 to continue.]" in notice
    assert await call(ReadTool(), ctx, path="many.txt", offset=99_999, limit=2) == "99998\n99999"


async def test_read_still_finds_nul_bytes_in_what_it_returns(ctx: ToolContext) -> None:
    (ctx.cwd / "late.bin").write_bytes(b"a\n" * 10_000 + b"b\x00c\n")
    with pytest.raises(ToolError, match="binary"):
        await call(ReadTool(), ctx, path="late.bin", offset=10_001)
    expected = "a\n\n[10000 more lines in file. Use offset=2 to continue.]"
    assert await call(ReadTool(), ctx, path="late.bin", limit=1) == expected


async def test_write_refuses_non_regular_targets_without_blocking(ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    with pytest.raises(ToolError, match="FIFO"):
        await call(WriteTool(), ctx, path="pipe", content="x")
    with pytest.raises(ToolError, match="character device"):
        await call(WriteTool(), ctx, path="/dev/null", content="x")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(ctx.cwd / "sock"))
        with pytest.raises(ToolError, match="it is a socket"):
            await call(WriteTool(), ctx, path="sock", content="x")


async def test_write_to_a_fifo_with_a_reader_writes_nothing(ctx: ToolContext) -> None:
    fifo = ctx.cwd / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(ToolError, match="FIFO"):
            await call(WriteTool(), ctx, path="pipe", content="secret")
        assert os.read(reader, 10) == b""  # nothing arrived
    finally:
        os.close(reader)


async def test_edit_refuses_fifos_devices_and_oversize_files(ctx: ToolContext) -> None:
    os.mkfifo(ctx.cwd / "pipe")
    edit = {"edits": [{"oldText": "a", "newText": "b"}]}
    with pytest.raises(ToolError, match="FIFO"):
        await call(EditTool(), ctx, path="pipe", **edit)
    with pytest.raises(ToolError, match="character device"):
        await call(EditTool(), ctx, path="/dev/zero", **edit)
    sparse(ctx.cwd / "big.txt", b"a\n", MAX_EDIT_BYTES + 1)
    with pytest.raises(ToolError, match=r"larger than 4\.0MB"):
        await call(EditTool(), ctx, path="big.txt", **edit)
    assert (ctx.cwd / "big.txt").stat().st_size == MAX_EDIT_BYTES + 1  # untouched


async def test_bash_log_of_a_flood_is_capped(ctx: ToolContext, monkeypatch: Any) -> None:
    monkeypatch.setattr(bash_output, "MAX_LOG_BYTES", 1024 * 1024)
    result = await asyncio.wait_for(
        BashTool().execute(
            ToolInvocation("c", {"command": "head -c 5000000 /dev/zero | tr '\\0' 'y'"}, AbortSignal(), _ignore, ctx)
        ),
        GUARD_S,
    )
    text = result.content[0].text
    assert "[Showing the first 5.0KB and the last 5.0KB of line 1 (4.8MB). Output log (first 1.0MB of 4.8MB): " in text
    assert result.details["log_truncated"] is True
    assert Path(result.details["full_output_path"]).stat().st_size == 1024 * 1024


async def test_bash_log_scrubbing_never_splits_a_secret(ctx: ToolContext, monkeypatch: Any) -> None:
    secret = "ghp_" + "Z" * 36
    monkeypatch.setattr(bash, "_SCRUB_PIECE", 7)  # every piece boundary falls inside some secret
    scrubbing = ToolContext(ctx.cwd, ctx.output_dir, scrub=lambda t: t.replace(secret, "***"))
    command = f"for i in $(seq 3000); do printf '{secret},'; done"
    result = await asyncio.wait_for(
        BashTool().execute(ToolInvocation("c", {"command": command}, AbortSignal(), _ignore, scrubbing)), GUARD_S
    )
    saved = Path(result.details["full_output_path"]).read_text()
    assert secret[:8] not in saved and saved.count("***") == 3000
