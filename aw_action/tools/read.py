"""The ``read`` tool: a text file's contents, paged by line, without line numbers (Pi's ``read``).

Lines are counted as in an editor: a final newline ends the last line rather than starting an
empty one, so ``"a\\nb\\n"`` has 2 lines. ``limit`` is applied first, then head truncation
(``DEFAULT_MAX_LINES`` / ``DEFAULT_MAX_BYTES``); every cut ends with a notice telling the model
the ``offset`` to continue from. Images are not supported: any file containing a NUL byte is
refused as binary.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aw_action.agent.tools import ToolContext, ToolError, ToolResult, UpdateCallback
from aw_action.ai.types import AbortSignal
from aw_action.security.fileio import read_bytes
from aw_action.security.identity import ToolIdentity
from aw_action.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head


def resolve_path(path: str, cwd: Path) -> Path:
    """Resolve a model-supplied path: ``~`` expands, relative paths are under ``cwd``.

    A leading ``@`` is dropped, because models often copy ``@file`` mentions verbatim. The path
    is not confined to ``cwd``; the agent has ``bash`` anyway.
    """
    if path.startswith("@"):
        path = path[1:]
    return cwd / Path(path).expanduser()


def _split_lines(text: str) -> list[str]:
    if not text:
        return []
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the final newline terminates the last line
    return lines


_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
        "offset": {"type": "integer", "description": "Line number to start reading from (1-indexed)"},
        "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to read"},
    },
    "required": ["path"],
}


class ReadTool:
    """Read a UTF-8 text file (invalid bytes become U+FFFD) relative to ``ctx.cwd``."""

    name = "read"
    description = (
        "Read the contents of a text file. Output is truncated to "
        f"{DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB (whichever is hit first). "
        "Use offset/limit for large files. When you need the full file, continue with offset "
        "until complete."
    )

    @property
    def parameters(self) -> dict[str, Any]:
        return _PARAMETERS

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, Any],
        signal: AbortSignal,
        on_update: UpdateCallback,
        ctx: ToolContext,
    ) -> ToolResult:
        if signal.aborted:
            raise ToolError("Operation aborted")
        path: str = args["path"]
        offset = args.get("offset")
        limit = args.get("limit")
        return await asyncio.to_thread(
            _read,
            path,
            resolve_path(path, ctx.cwd),
            None if offset is None else int(offset),
            None if limit is None else int(limit),
            ctx.identity,
        )


def _load(path: str, absolute: Path, identity: ToolIdentity | None) -> str:
    try:
        data = read_bytes(absolute, identity)
    except FileNotFoundError:
        raise ToolError(f"File not found: {path}") from None
    except IsADirectoryError:
        raise ToolError(f"{path} is a directory, not a file. Use bash (ls) to list it.") from None
    except OSError as exc:
        raise ToolError(f"Could not read {path}: {exc.strerror or exc}") from None
    if b"\x00" in data:
        raise ToolError(f"Cannot read {path}: it is a binary file (it contains NUL bytes).")
    return data.decode("utf-8", errors="replace")


def _read(
    path: str, absolute: Path, offset: int | None, limit: int | None, identity: ToolIdentity | None = None
) -> ToolResult:
    lines = _split_lines(_load(path, absolute, identity))
    total = len(lines)
    start = max(0, offset - 1) if offset else 0  # 0-based index of the first line shown
    if total == 0 and start == 0:
        return ToolResult.text("(empty file)", total_lines=0, truncated=False)
    if start >= total:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")

    end = total if limit is None else min(start + limit, total)
    truncation = truncate_head("\n".join(lines[start:end]))
    first = start + 1  # 1-based, for notices
    details: dict[str, Any] = {"total_lines": total, "truncated": truncation.truncated}

    if truncation.first_line_exceeds_limit:
        size = format_size(len(lines[start].encode("utf-8")))
        text = (
            f"[Line {first} is {size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]"
        )
    elif truncation.truncated:
        last = first + truncation.output_lines - 1
        limit_note = "" if truncation.truncated_by == "lines" else f" ({format_size(DEFAULT_MAX_BYTES)} limit)"
        text = (
            f"{truncation.content}\n\n[Showing lines {first}-{last} of {total}{limit_note}. "
            f"Use offset={last + 1} to continue.]"
        )
        details["next_offset"] = last + 1
    elif end < total:
        text = f"{truncation.content}\n\n[{total - end} more lines in file. Use offset={end + 1} to continue.]"
        details["next_offset"] = end + 1
    else:
        text = truncation.content
    return ToolResult.text(text, **details)
