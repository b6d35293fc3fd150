"""The ``bash`` tool: run one shell command and report its output (Pi's ``bash``).

Contract:
- ``bash -c command`` runs in its own session/process group (so a timeout or abort can kill the
  whole tree), in ``ctx.cwd``, with the environment ``ctx.env`` (the process's when empty) and stdin at
  ``/dev/null``; stdout and stderr share one pipe, so they interleave as a terminal shows them.
- The call ends when the shell exits. Output still arriving from background jobs is collected
  for ``DRAIN_GRACE_S`` more, then the pipe is closed; background jobs are not killed.
- The result keeps the TAIL of the output (``DEFAULT_MAX_LINES`` / ``DEFAULT_MAX_BYTES``). When
  output is cut, the full output is saved as ``ctx.output_dir/bash-<16 hex>.log`` and a footer
  says which lines are shown. Memory stays bounded: only a rolling tail is held, the rest goes
  straight to that file.
- Failures raise ``ToolError`` whose text is the (truncated) output followed by
  ``Command exited with code N``, ``Command timed out after N seconds`` or ``Command aborted``.
  A timeout or abort SIGKILLs the process group; so does the cancellation of ``execute``.
- Partial output reaches ``on_update`` (tail-truncated, no footer) at most every
  ``UPDATE_INTERVAL_S``; the first chunk is sent at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import secrets
import signal as signals
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from aw_action.agent.tools import ToolContext, ToolError, ToolResult, UpdateCallback
from aw_action.ai.types import AbortSignal
from aw_action.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    Truncation,
    format_size,
    truncate_tail,
)

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
UPDATE_INTERVAL_S = 0.1
DRAIN_GRACE_S = 0.5
_READ_CHUNK = 64 * 1024


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


class _Output:
    """Accumulates command output: a rolling tail in memory, everything else spilled to a file.

    Holds at most ``2 * max_bytes`` bytes; once more arrives, the full output so far goes to a
    log file in ``output_dir`` and every later chunk is appended to it. Counts total bytes and
    newlines so that line numbers in the footer refer to the whole output.
    """

    def __init__(
        self, output_dir: Path, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.output_dir = output_dir
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.tail = bytearray()
        self.total_bytes = 0
        self.newlines = 0
        self.current_line_bytes = 0  # bytes after the last newline
        self.previous_line_bytes = 0  # length of the last complete line
        self.path: Path | None = None
        self._file: IO[bytes] | None = None

    def feed(self, data: bytes) -> None:
        self.total_bytes += len(data)
        self.newlines += data.count(b"\n")
        last = data.rfind(b"\n")
        if last < 0:
            self.current_line_bytes += len(data)
        else:
            before = data.rfind(b"\n", 0, last)
            self.previous_line_bytes = self.current_line_bytes + last if before < 0 else last - before - 1
            self.current_line_bytes = len(data) - last - 1
        self.tail += data
        excess = len(self.tail) - 2 * self.max_bytes
        if excess > 0:
            if self._file is None:
                self._file = self._open()
                self._file.write(self.tail)
            else:
                self._file.write(data)
            del self.tail[:excess]
        elif self._file is not None:
            self._file.write(data)

    def _open(self) -> IO[bytes]:
        self.output_dir.mkdir(parents=True, exist_ok=True)
        self.path = self.output_dir / f"bash-{secrets.token_hex(8)}.log"
        return self.path.open("wb")

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def _text(self) -> str:
        text = self.tail.decode("utf-8", errors="replace")
        return text[:-1] if text.endswith("\n") else text  # a final newline ends the last line

    def snapshot(self) -> Truncation:
        return truncate_tail(self._text(), max_lines=self.max_lines, max_bytes=self.max_bytes)

    def finish(self) -> tuple[str, dict[str, Any]]:
        """Close the spill file and return the text for the model ("" if there was no output)
        plus result details.

        Spills the in-memory output to a file if truncation happened without a spill (many
        short lines), so the footer always names a file holding the complete output.
        """
        truncation = self.snapshot()
        truncated = truncation.truncated or self.path is not None
        if truncated and self.path is None:
            with self._open() as spill:
                spill.write(self.tail)
        self.close()
        text = truncation.content
        details: dict[str, Any] = {
            "truncated": truncated,
            "full_output_path": str(self.path) if self.path else None,
        }
        if not truncated:
            return text, details

        ends_with_newline = self.tail.endswith(b"\n")
        total = self.newlines if ends_with_newline else self.newlines + 1
        first, last = total - truncation.output_lines + 1, total
        if truncation.last_line_partial:
            line_size = self.previous_line_bytes if ends_with_newline else self.current_line_bytes
            notice = (
                f"Showing last {format_size(truncation.output_bytes)} of line {last} (line is {format_size(line_size)})"
            )
        elif truncation.truncated_by == "lines":
            notice = f"Showing lines {first}-{last} of {total}"
        else:
            notice = f"Showing lines {first}-{last} of {total} ({format_size(self.max_bytes)} limit)"
        details.update(total_lines=total, total_bytes=self.total_bytes)
        return f"{text}\n\n[{notice}. Full output: {self.path}]", details


_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "Bash command to execute"},
        "timeout": {"type": "number", "exclusiveMinimum": 0, "description": "Timeout in seconds (optional)"},
    },
    "required": ["command"],
}


class BashTool:
    """Run a bash command; see the module docstring for the full contract.

    ``default_timeout_s`` applies when the model gives no ``timeout``; ``max_timeout_s`` caps
    any timeout, so a model cannot hold the job for longer than the operator allows.
    """

    name = "bash"

    def __init__(self, default_timeout_s: float = DEFAULT_TIMEOUT_S, max_timeout_s: float = MAX_TIMEOUT_S) -> None:
        if not 0 < default_timeout_s <= max_timeout_s:
            raise ValueError("need 0 < default_timeout_s <= max_timeout_s")
        self.default_timeout_s = default_timeout_s
        self.max_timeout_s = max_timeout_s

    @property
    def description(self) -> str:
        return (
            "Execute a bash command in the current working directory. Returns stdout and stderr. "
            f"Output is truncated to last {DEFAULT_MAX_LINES} lines or {DEFAULT_MAX_BYTES // 1024}KB "
            "(whichever is hit first). If truncated, full output is saved to a file. Optionally provide "
            f"a timeout in seconds (default {_format_seconds(self.default_timeout_s)}, "
            f"max {_format_seconds(self.max_timeout_s)}). Background processes must redirect their "
            "output (e.g. `cmd > out.log 2>&1 &`)."
        )

    @property
    def parameters(self) -> dict[str, Any]:
        return _PARAMETERS

    def _timeout(self, requested: Any) -> float:
        if requested is None:
            return self.default_timeout_s
        value = float(requested)
        if not (math.isfinite(value) and value > 0):
            raise ToolError(f"Invalid timeout {requested}: it must be a positive number of seconds.")
        return min(value, self.max_timeout_s)

    async def execute(
        self,
        tool_call_id: str,
        args: dict[str, Any],
        signal: AbortSignal,
        on_update: UpdateCallback,
        ctx: ToolContext,
    ) -> ToolResult:
        timeout = self._timeout(args.get("timeout"))
        if signal.aborted:
            raise ToolError("Command aborted")
        if not ctx.cwd.is_dir():
            raise ToolError(f"Working directory does not exist: {ctx.cwd}\nCannot execute bash commands.")
        return await _Run(args["command"], timeout, signal, on_update, ctx).run()


class _Run:
    """One command execution: process, output pump, update throttle and the outcome race."""

    def __init__(
        self, command: str, timeout: float, signal: AbortSignal, on_update: UpdateCallback, ctx: ToolContext
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.signal = signal
        self.on_update = on_update
        self.ctx = ctx
        self.output = _Output(ctx.output_dir)
        self.changed = asyncio.Event()
        self.stopped = asyncio.Event()

    async def run(self) -> ToolResult:
        # Our own pipe rather than PIPE: its read end is a transport we can close ourselves when
        # a background job keeps the write end open after the shell has exited.
        read_fd, write_fd = os.pipe()
        reader = asyncio.StreamReader()
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_fd, "rb", buffering=0)
        )
        try:
            proc = await asyncio.create_subprocess_exec(
                "bash",
                "-c",
                self.command,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=asyncio.subprocess.STDOUT,
                cwd=self.ctx.cwd,
                env=self.ctx.env or dict(os.environ),
                start_new_session=True,
                **(self.ctx.identity.popen_kwargs() if self.ctx.identity else {}),
            )
        except OSError as exc:
            transport.close()
            raise ToolError(f"Could not start bash: {exc}") from None
        except BaseException:
            transport.close()
            raise
        finally:
            os.close(write_fd)

        pump = asyncio.create_task(self._pump(reader))
        updater = asyncio.create_task(self._send_updates())
        exited = asyncio.create_task(proc.wait())
        aborted = asyncio.create_task(self.signal.wait())
        try:
            await asyncio.wait({exited, aborted}, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED)
            outcome = "exited" if exited.done() else "aborted" if aborted.done() else "timeout"
            if outcome != "exited":
                _kill_group(proc.pid)
                await exited
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pump), DRAIN_GRACE_S)
            self.stopped.set()
            self.changed.set()
            await updater
        finally:
            if proc.returncode is None:  # cancelled: leave nothing running, reap the shell
                _kill_group(proc.pid)
                await asyncio.wait({exited}, timeout=1)
            for task in (pump, updater, exited, aborted):
                task.cancel()
            transport.close()
            self.output.close()

        text, details = self.output.finish()
        if self.ctx.scrub is not None:
            text = self.ctx.scrub(text)
            if self.output.path is not None:
                _scrub_file(self.output.path, self.ctx.scrub)
        code = proc.returncode
        if outcome == "aborted":
            raise ToolError(_join(text, "Command aborted"))
        if outcome == "timeout":
            raise ToolError(_join(text, f"Command timed out after {_format_seconds(self.timeout)} seconds"))
        text = text or "(no output)"
        if code is not None and code < 0:
            raise ToolError(f"{text}\n\nCommand was killed by signal {_signal_name(-code)}")
        if code:
            raise ToolError(f"{text}\n\nCommand exited with code {code}")
        return ToolResult.text(text, exit_code=code, **details)

    async def _pump(self, reader: asyncio.StreamReader) -> None:
        while chunk := await reader.read(_READ_CHUNK):
            self.output.feed(chunk)
            self.changed.set()

    async def _send_updates(self) -> None:
        """Send the current output tail whenever it changed, at most every ``UPDATE_INTERVAL_S``."""
        while True:
            await self.changed.wait()
            if self.stopped.is_set():
                return
            self.changed.clear()
            snapshot = self.output.snapshot()
            try:
                await self.on_update(ToolResult.text(snapshot.content, truncated=snapshot.truncated))
            except Exception:
                log.exception("bash on_update callback failed")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopped.wait(), UPDATE_INTERVAL_S)


def _scrub_file(path: Path, scrub: Callable[[str], str]) -> None:
    """Rewrite a saved output file line by line through the redactor (secrets hold no newline)."""
    tmp = path.with_suffix(".scrub")
    with path.open("r", encoding="utf-8", errors="replace", newline="") as src, tmp.open("w", encoding="utf-8") as dst:
        for line in src:
            dst.write(scrub(line))
    tmp.replace(path)


def _join(output: str, message: str) -> str:
    """Pi's abort/timeout text: the output (if any), a blank line, the message."""
    return f"{output}\n\n{message}" if output else message


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signals.SIGKILL)


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)
