"""The write and edit tools on real files, and the built-in tool set."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aw_action.agent.tools import ToolContext, ToolError, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.tools import builtin_tools
from aw_action.tools.edit import EditTool
from aw_action.tools.write import WriteTool


async def _ignore(result: ToolResult) -> None:
    return None


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=tmp_path, output_dir=tmp_path / "out")


async def write(ctx: ToolContext, path: str, content: str) -> ToolResult:
    return await WriteTool().execute(
        ToolInvocation("c", {"path": path, "content": content}, AbortSignal(), _ignore, ctx)
    )


async def edit(ctx: ToolContext, path: str, *pairs: tuple[str, str], **extra: Any) -> ToolResult:
    args: dict[str, Any] = {"path": path, **extra}
    if pairs:
        args["edits"] = [{"oldText": old, "newText": new} for old, new in pairs]
    jsonschema.validate(args, EditTool().parameters)  # what the agent loop does first
    return await EditTool().execute(ToolInvocation("c", args, AbortSignal(), _ignore, ctx))


# write


async def test_write_creates_parent_dirs(ctx: ToolContext) -> None:
    result = await write(ctx, "a/b/c.txt", "hello")
    assert result.content[0].text == "Successfully wrote 5 bytes to a/b/c.txt"
    assert (ctx.cwd / "a/b/c.txt").read_text() == "hello"


async def test_write_overwrites_and_counts_utf8_bytes(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("old content that is longer")
    result = await write(ctx, "f.txt", "café\r\n")
    assert result.content[0].text == "Successfully wrote 7 bytes to f.txt"
    assert (ctx.cwd / "f.txt").read_bytes() == "café\r\n".encode()


async def test_write_into_a_directory_path_fails(ctx: ToolContext) -> None:
    (ctx.cwd / "d").mkdir()
    with pytest.raises(ToolError, match="Could not write d"):
        await write(ctx, "d", "x")


# edit


async def test_edit_replaces_unique_text_and_reports_diff(ctx: ToolContext) -> None:
    (ctx.cwd / "f.py").write_text("def f():\n    return 1\n")
    result = await edit(ctx, "f.py", ("return 1", "return 2"))
    assert result.content[0].text == "Successfully replaced 1 block(s) in f.py."
    assert (ctx.cwd / "f.py").read_text() == "def f():\n    return 2\n"
    diff = result.details["diff"]
    assert diff.startswith("--- f.py\n+++ f.py\n@@")
    assert "-    return 1\n" in diff and "+    return 2\n" in diff
    assert result.details["first_changed_line"] == 2


async def test_edit_no_match(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("hello world\n")
    with pytest.raises(ToolError) as err:
        await edit(ctx, "f.txt", ("hello  world", "bye"))
    assert str(err.value) == (
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    )
    assert (ctx.cwd / "f.txt").read_text() == "hello world\n"


async def test_edit_requires_unique_match(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("x = 1\nx = 1\n")
    with pytest.raises(ToolError) as err:
        await edit(ctx, "f.txt", ("x = 1", "x = 2"))
    assert str(err.value) == (
        "Found 2 occurrences of the text in f.txt. The text must be unique. "
        "Please provide more context to make it unique."
    )
    assert (ctx.cwd / "f.txt").read_text() == "x = 1\nx = 1\n"


async def test_edits_match_the_original_not_each_other(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("a\nb\nc\n")
    result = await edit(ctx, "f.txt", ("b", "c"), ("a", "b"))
    assert result.content[0].text == "Successfully replaced 2 block(s) in f.txt."
    assert (ctx.cwd / "f.txt").read_text() == "b\nc\nc\n"


async def test_failing_edit_among_many_names_its_index_and_writes_nothing(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("a\nb\n")
    with pytest.raises(ToolError, match=r"^Could not find edits\[1\] in f\.txt\. The old text must match"):
        await edit(ctx, "f.txt", ("a", "A"), ("zzz", "Z"))
    assert (ctx.cwd / "f.txt").read_text() == "a\nb\n"


async def test_overlapping_edits_are_rejected(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("one two three\n")
    with pytest.raises(ToolError, match=r"edits\[0\] and edits\[1\] overlap in f\.txt"):
        await edit(ctx, "f.txt", ("one two", "1 2"), ("two three", "2 3"))


async def test_empty_old_text_is_rejected(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("x\n")
    with pytest.raises(ToolError, match=r"oldText must not be empty in f\.txt"):
        await edit(ctx, "f.txt", ("", "y"))


async def test_noop_edit_is_rejected(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("x\n")
    with pytest.raises(ToolError, match=r"^No changes made to f\.txt\."):
        await edit(ctx, "f.txt", ("x", "x"))


async def test_missing_file(ctx: ToolContext) -> None:
    with pytest.raises(ToolError, match=r"File not found: nope\.txt"):
        await edit(ctx, "nope.txt", ("a", "b"))


async def test_crlf_line_endings_are_preserved(ctx: ToolContext) -> None:
    path = ctx.cwd / "win.txt"
    path.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await edit(ctx, "win.txt", ("two\nthree", "2\n3\n4"))
    assert path.read_bytes() == b"one\r\n2\r\n3\r\n4\r\n"
    await edit(ctx, "win.txt", ("one\r\n2", "1\r\n2"))  # CRLF in oldText matches too
    assert path.read_bytes() == b"1\r\n2\r\n3\r\n4\r\n"


async def test_bom_is_preserved(ctx: ToolContext) -> None:
    path = ctx.cwd / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfhello world\n")
    result = await edit(ctx, "bom.txt", ("hello", "bye"))
    assert path.read_bytes() == b"\xef\xbb\xbfbye world\n"
    assert "\ufeff" not in result.details["diff"]


async def test_non_utf8_file_is_refused(ctx: ToolContext) -> None:
    path = ctx.cwd / "latin1.txt"
    path.write_bytes(b"caf\xe9\n")
    with pytest.raises(ToolError, match="not valid UTF-8"):
        await edit(ctx, "latin1.txt", ("caf", "tea"))
    assert path.read_bytes() == b"caf\xe9\n"


async def test_legacy_top_level_old_and_new_text(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("alpha\n")
    result = await edit(ctx, "f.txt", oldText="alpha", newText="beta")
    assert result.content[0].text == "Successfully replaced 1 block(s) in f.txt."
    assert (ctx.cwd / "f.txt").read_text() == "beta\n"


async def test_edits_as_json_string(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("alpha\n")
    args = {"path": "f.txt", "edits": json.dumps([{"oldText": "alpha", "newText": "gamma"}])}
    await EditTool().execute(ToolInvocation("c", args, AbortSignal(), _ignore, ctx))
    assert (ctx.cwd / "f.txt").read_text() == "gamma\n"


async def test_no_edits_at_all(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("alpha\n")
    with pytest.raises(ToolError, match="edits must contain at least one replacement"):
        await edit(ctx, "f.txt")


async def test_concurrent_edits_of_one_file_both_land(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("a = 1\nb = 1\n")
    await asyncio.gather(edit(ctx, "f.txt", ("a = 1", "a = 2")), edit(ctx, "f.txt", ("b = 1", "b = 2")))
    assert (ctx.cwd / "f.txt").read_text() == "a = 2\nb = 2\n"


async def test_diff_marks_missing_final_newline(ctx: ToolContext) -> None:
    (ctx.cwd / "f.txt").write_text("a\nb")
    result = await edit(ctx, "f.txt", ("b", "c"))
    assert result.details["diff"].endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")


# the built-in set


def test_builtin_tools() -> None:
    tools = builtin_tools()
    assert [t.name for t in tools] == ["bash", "read", "write", "edit"]
    for tool in tools:
        assert tool.description
        assert tool.parameters["type"] == "object"
        assert set(tool.parameters["required"]) <= set(tool.parameters["properties"])
        jsonschema.Draft202012Validator.check_schema(tool.parameters)
