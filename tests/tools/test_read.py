"""The read tool on real files: paging notices, truncation, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aw_action.agent.tools import ToolContext, ToolError, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.tools.read import ReadTool


async def _ignore(result: ToolResult) -> None:
    return None


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, output_dir=tmp_path / "out")


async def read(ctx: ToolContext, path: str, **args: Any) -> str:
    result = await ReadTool().execute(ToolInvocation("c", {"path": path, **args}, AbortSignal(), _ignore, ctx))
    return result.content[0].text


def numbered(n: int) -> str:
    return "".join(f"line{i}\n" for i in range(1, n + 1))


async def test_reads_text_without_line_numbers(ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("alpha\nbeta\n")
    assert await read(ctx, "a.txt") == "alpha\nbeta"


async def test_absolute_and_at_prefixed_paths(ctx: ToolContext, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    assert await read(ctx, str(tmp_path / "a.txt")) == "x"
    assert await read(ctx, "@a.txt") == "x"


async def test_offset_and_limit_with_more_lines_notice(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text(numbered(10))
    text = await read(ctx, "f.txt", offset=3, limit=2)
    assert text == "line3\nline4\n\n[6 more lines in file. Use offset=5 to continue.]"


async def test_limit_reaching_the_end_has_no_notice(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text(numbered(10))
    assert await read(ctx, "f.txt", offset=9, limit=5) == "line9\nline10"


async def test_offset_beyond_end(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text(numbered(10))
    assert await read(ctx, "f.txt", offset=10) == "line10"
    with pytest.raises(ToolError) as err:
        await read(ctx, "f.txt", offset=11)
    assert str(err.value) == "Offset 11 is beyond end of file (10 lines total)"


async def test_head_truncation_by_lines(ctx: ToolContext) -> None:
    (ctx.cwd / "big.txt").write_text(numbered(2500))
    text = await read(ctx, "big.txt")
    body, notice = text.split("\n\n")
    assert body.split("\n") == [f"line{i}" for i in range(1, 2001)]
    assert notice == "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"
    rest = await read(ctx, "big.txt", offset=2001)
    assert rest.split("\n") == [f"line{i}" for i in range(2001, 2501)]


async def test_limit_applies_before_truncation(ctx: ToolContext) -> None:
    (ctx.cwd / "big.txt").write_text(numbered(5000))
    text = await read(ctx, "big.txt", offset=11, limit=3000)
    assert text.endswith("\n\n[Showing lines 11-2010 of 5000. Use offset=2011 to continue.]")


async def test_head_truncation_by_bytes(ctx: ToolContext) -> None:
    (ctx.cwd / "wide.txt").write_text("".join("x" * 100 + "\n" for _ in range(1000)))
    body, notice = (await read(ctx, "wide.txt")).split("\n\n")
    assert len(body.split("\n")) == 506  # 506 lines of 100 chars + 505 newlines fit in 50KB
    assert notice == "[Showing lines 1-506 of 1000 (50.0KB limit). Use offset=507 to continue.]"


async def test_first_line_over_byte_limit(ctx: ToolContext) -> None:
    (ctx.cwd / "min.js").write_text("x" * 60_000 + "\nshort\n")
    text = await read(ctx, "min.js")
    assert text == "[Line 1 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '1p' min.js | head -c 51200]"


async def test_missing_file_names_the_path(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"nope/missing\.txt"):
        await read(ctx, "nope/missing.txt")


async def test_binary_file_is_refused(ctx: ToolContext) -> None:
    (ctx.cwd / "blob.bin").write_bytes(b"PK\x03\x04\x00\x00data")
    with pytest.raises(ToolError, match="binary file"):
        await read(ctx, "blob.bin")


async def test_directory_is_refused(ctx: ToolContext) -> None:
    (ctx.cwd / "sub").mkdir()
    with pytest.raises(ToolError, match="directory"):
        await read(ctx, "sub")


async def test_empty_file(ctx: ToolContext) -> None:
    (ctx.cwd / "empty.txt").write_text("")
    assert await read(ctx, "empty.txt") == "(empty file)"


async def test_invalid_utf8_is_replaced(ctx: ToolContext) -> None:
    (ctx.cwd / "latin1.txt").write_bytes(b"caf\xe9")
    assert await read(ctx, "latin1.txt") == "caf\ufffd"


async def test_aborted_signal(ctx: ToolContext) -> None:
    (ctx.cwd / "a.txt").write_text("x")
    signal = AbortSignal()
    signal.abort()
    with pytest.raises(ToolError, match="aborted"):
        await ReadTool().execute(ToolInvocation("c", {"path": "a.txt"}, signal, _ignore, ctx))
