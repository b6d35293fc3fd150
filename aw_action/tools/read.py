"""The ``read`` tool: a text file's contents, paged by line, without line numbers (Pi's ``read``).

Lines are counted as in an editor: a final newline ends the last line rather than starting an
empty one, so ``"a\\nb\\n"`` has 2 lines. ``limit`` is applied first, then head truncation
(``DEFAULT_MAX_LINES`` / ``DEFAULT_MAX_BYTES``); every cut ends with a notice telling the model
the ``offset`` to continue from. Images are not supported: a file with a NUL byte in its first
8 KiB (git's test) or in the lines returned is refused as binary.

Bounded: only regular files are read (a FIFO, socket or device is refused at once, never waited
on; ``fs.py``), and the file is streamed (``lines.py``): memory holds about one chunk plus what
is returned, whatever the file's size. Counting the lines after the window stops after
``COUNT_BUDGET`` bytes (the notice then says "at least"); a single line is scanned for at most
``LINE_SCAN`` bytes. The scan stops when the run is aborted.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement
from aw_action.tools.fs import open_for_read
from aw_action.tools.lines import LineReader, Stopped
from aw_action.tools.truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size

BINARY_SNIFF = 8192
COUNT_BUDGET = 256 * 1024 * 1024
LINE_SCAN = 64 * 1024 * 1024


def resolve_path(path: str, cwd: Path) -> Path:
    """Resolve a model-supplied path: ``~`` expands, relative paths are under ``cwd``.

    A leading ``@`` is dropped, because models often copy ``@file`` mentions verbatim. The path
    is not confined to ``cwd``; the agent has ``bash`` anyway.
    """
    if path.startswith("@"):
        path = path[1:]
    return cwd / Path(path).expanduser()


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

    async def execute(self, call: ToolInvocation) -> ToolResult:
        call.ensure_running()
        args, signal, ctx = call.args, call.signal, call.ctx
        path: str = args["path"]
        offset = args.get("offset")
        limit = args.get("limit")
        return await asyncio.to_thread(
            _read,
            path,
            resolve_path(path, ctx.cwd),
            None if offset is None else int(offset),
            None if limit is None else int(limit),
            lambda: signal.aborted,
            ctx.identity,
            ctx.file_confinement,
        )


@dataclass
class _Window:
    """What one read saw: the kept lines of the window and the file's line count."""

    lines: list[tuple[bytes, int, bool]]
    total: int
    total_known: bool


def _scan(reader: LineReader, start: int, limit: int | None) -> _Window:
    """Skip ``start`` lines, keep the window's first lines (as much as the limits can show,
    plus one to know whether more follow), then count the rest within the budget."""
    skipped = reader.skip_lines(start)
    if skipped < start:
        return _Window([], skipped, True)
    want = DEFAULT_MAX_LINES + 1 if limit is None else min(limit, DEFAULT_MAX_LINES + 1)
    lines: list[tuple[bytes, int, bool]] = []
    shown = 0
    while len(lines) < want and shown <= DEFAULT_MAX_BYTES:
        line = reader.next_line(DEFAULT_MAX_BYTES + 1, LINE_SCAN)
        if line is None:
            break
        lines.append(line)
        shown += min(line[1], DEFAULT_MAX_BYTES + 1) + 1
        if not line[2]:
            return _Window(lines, start + len(lines), False)
    rest, complete = reader.count_lines(COUNT_BUDGET)
    return _Window(lines, start + len(lines) + rest, complete)


def _read(
    path: str,
    absolute: Path,
    offset: int | None,
    limit: int | None,
    stop: Callable[[], bool],
    identity: ToolIdentity | None = None,
    confinement: Confinement | None = None,
) -> ToolResult:
    fd = open_for_read(absolute, path, identity, confinement)
    try:
        reader = LineReader(fd, stop)
        if b"\x00" in reader.head(BINARY_SNIFF):
            raise ToolError(f"Cannot read {path}: it is a binary file (it contains NUL bytes).")
        start = max(0, offset - 1) if offset else 0  # 0-based index of the first line shown
        window = _scan(reader, start, limit)
    except Stopped:
        raise ToolError("Operation aborted") from None
    except OSError as exc:
        raise ToolError(f"Could not read {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return _render(path, start, offset, limit, window)


def _text(path: str, lines: list[str]) -> str:
    """The lines returned, joined; a NUL among them means a binary file after all."""
    if any("\x00" in line for line in lines):
        raise ToolError(f"Cannot read {path}: it is a binary file (it contains NUL bytes).")
    return "\n".join(lines)


def _window_span(window: _Window, start: int, limit: int | None, end: int) -> int | None:
    """How many lines the window has (``limit`` applied), or None when more than were kept."""
    if window.total_known:
        return end - start
    if limit is not None and start + limit <= window.total:
        return limit
    return None


def _render(path: str, start: int, offset: int | None, limit: int | None, window: _Window) -> ToolResult:
    total = window.total
    of_total = f"{total}" if window.total_known else f"at least {total}"
    if total == 0 and start == 0:
        return ToolResult.text("(empty file)", total_lines=0, truncated=False)
    if start >= total and window.total_known:
        raise ToolError(f"Offset {offset} is beyond end of file ({total} lines total)")
    first = start + 1  # 1-based, for notices
    details: dict[str, Any] = {"total_lines": total if window.total_known else None, "truncated": False}
    if not window.total_known:
        details["total_lines_at_least"] = total
    end = total if limit is None else min(start + limit, total)  # exclusive, 0-based
    texts = [raw.decode("utf-8", "replace") for raw, _, _ in window.lines]
    sizes = [
        len(t.encode("utf-8")) if n <= DEFAULT_MAX_BYTES else n
        for t, (_, n, _) in zip(texts, window.lines, strict=True)
    ]
    span = _window_span(window, start, limit, end)
    if span is not None and span <= min(len(texts), DEFAULT_MAX_LINES) and sum(sizes) + span - 1 <= DEFAULT_MAX_BYTES:
        body = _text(path, texts[:span])
        if end >= total and window.total_known:
            return ToolResult.text(body, **details)
        more = f"{total - end}" if window.total_known else f"{total - end}+"
        details["next_offset"] = end + 1
        return ToolResult.text(f"{body}\n\n[{more} more lines in file. Use offset={end + 1} to continue.]", **details)
    details["truncated"] = True
    if sizes and sizes[0] > DEFAULT_MAX_BYTES:
        exact = window.lines[0][2]
        line_size = format_size(sizes[0]) if exact else f"over {format_size(sizes[0])}"
        return ToolResult.text(
            f"[Line {first} is {line_size}, exceeds {format_size(DEFAULT_MAX_BYTES)} limit. "
            f"Use bash: sed -n '{first}p' {path} | head -c {DEFAULT_MAX_BYTES}]",
            **details,
        )
    kept, used, by_bytes = 0, 0, False
    for size in sizes[:DEFAULT_MAX_LINES]:
        cost = size + (1 if kept else 0)
        if used + cost > DEFAULT_MAX_BYTES:
            by_bytes = True
            break
        kept, used = kept + 1, used + cost
    last = first + kept - 1
    limit_note = f" ({format_size(DEFAULT_MAX_BYTES)} limit)" if by_bytes else ""
    details["next_offset"] = last + 1
    body = _text(path, texts[:kept])
    return ToolResult.text(
        f"{body}\n\n[Showing lines {first}-{last} of {of_total}{limit_note}. Use offset={last + 1} to continue.]",
        **details,
    )
