"""The ``write`` tool: create or overwrite a file with given content (Pi's ``write``).

Also home of ``path_lock``, which serialises every mutation of one path (``write`` and ``edit``):
the agent loop may run tool calls concurrently, and two read-modify-write edits of one file must
not interleave.
"""

from __future__ import annotations

import asyncio
import os
import weakref
from pathlib import Path
from typing import Any

from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement
from aw_action.tools.fs import open_for_write, refuse_if_read_only, write_all
from aw_action.tools.read import resolve_path

_locks: weakref.WeakValueDictionary[Path, asyncio.Lock] = weakref.WeakValueDictionary()


def path_lock(path: Path) -> asyncio.Lock:
    """The lock guarding mutations of ``path`` (one per absolute path, alive while in use)."""
    key = Path(path).absolute()
    lock = _locks.get(key)
    if lock is None:
        lock = asyncio.Lock()
        _locks[key] = lock
    return lock


_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
        "content": {"type": "string", "description": "Content to write to the file"},
    },
    "required": ["path", "content"],
}


class WriteTool:
    """Write ``content`` as UTF-8 to ``path`` (relative to ``ctx.cwd``), creating parent dirs.

    The reported size is the number of UTF-8 bytes written, not the string length. Only regular
    files are written: an existing FIFO, socket, device or directory is refused before anything
    is written (``fs.open_for_write``), so a FIFO with no reader cannot block the run.
    """

    name = "write"
    description = (
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. "
        "Automatically creates parent directories."
    )

    @property
    def parameters(self) -> dict[str, Any]:
        return _PARAMETERS

    async def execute(self, call: ToolInvocation) -> ToolResult:
        call.ensure_running()
        args, ctx = call.args, call.ctx
        path: str = args["path"]
        data = args["content"].encode("utf-8", errors="replace")
        refuse_if_read_only(ctx.file_confinement, "write")
        absolute = resolve_path(path, ctx.cwd)
        async with path_lock(absolute):
            await asyncio.to_thread(_write, path, absolute, data, ctx.identity, ctx.file_confinement)
        return ToolResult.text(f"Successfully wrote {len(data)} bytes to {path}", bytes=len(data))


def _write(
    path: str, absolute: Path, data: bytes, identity: ToolIdentity | None = None, confinement: Confinement | None = None
) -> None:
    fd = open_for_write(absolute, path, identity, confinement, make_parents=True)
    try:
        write_all(fd, data)
    except OSError as exc:
        raise ToolError(f"Could not write {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
