"""The ``bash`` tool: run one shell command and report its output (Pi's ``bash``).

Contract:
- ``bash -c command`` runs in its own session/process group (so a timeout or abort can kill the
  whole tree), in ``ctx.cwd``, with the environment ``ctx.env`` (the process's when empty) plus
  the ``AW_AGENT_PROCESS`` marker (``processes.py``), and stdin at ``/dev/null``; stdout and
  stderr share one pipe, so they interleave as a terminal shows them.
- The call ends when the shell exits. Output still arriving from background jobs is collected
  for ``DRAIN_GRACE_S`` more, then the pipe is closed; background jobs are not killed (an agent
  may start a server in one call and use it in the next). They end with the run:
  ``processes.kill_all_agent_processes()``.
- The result keeps the TAIL of the output (``DEFAULT_MAX_LINES`` / ``DEFAULT_MAX_BYTES``). When
  output is cut, the full output is saved as ``ctx.output_dir/bash-<16 hex>.log`` and a footer
  says which lines are shown. Memory stays bounded: only a rolling tail is held, the rest goes
  straight to that file, which keeps at most ``MAX_LOG_BYTES`` (the footer then says so), so a
  command printing gigabytes fills neither memory nor the disk.
- Failures raise ``ToolError`` whose text is the (truncated) output followed by
  ``Command exited with code N``, ``Command timed out after N seconds`` or ``Command aborted``.
  A timeout, an abort or the cancellation of ``execute`` SIGKILLs every process of the call:
  its process group and, through the marker and the subreaper (``processes.py``), what left
  the group (``setsid``, double-forked daemons).
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
from aw_action.tools.processes import kill_call, prepare_command_env, shell_finished, shell_started
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
MAX_LOG_BYTES = 32 * 1024 * 1024
"""The saved output log keeps the first this many bytes of a command's output."""
_SCRUB_PIECE = 1024 * 1024
_SCRUB_RUN_LIMIT = 4 * 1024 * 1024


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
        self.logged = 0
        self.log_error: str | None = None
        """Why the output log stopped (disk full, unwritable dir); the command still runs."""

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
            if self._file is None and self.log_error is None:
                self._file = self._open()
                self._log(bytes(self.tail))
            else:
                self._log(data)
            del self.tail[:excess]
        elif self._file is not None:
            self._log(data)

    def _log(self, data: bytes) -> None:
        room = MAX_LOG_BYTES - self.logged
        if self._file is None or room <= 0:
            return
        try:
            self._file.write(data[:room])
        except OSError as exc:  # disk full, quota: the log stops, the command goes on
            self._fail(exc)
            return
        self.logged += min(room, len(data))

    def _fail(self, exc: OSError) -> None:
        self.log_error = exc.strerror or str(exc)
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    @property
    def log_truncated(self) -> bool:
        return self.total_bytes > self.logged and self.path is not None

    def _open(self) -> IO[bytes] | None:
        try:
            self.output_dir.mkdir(parents=True, exist_ok=True)
            self.path = self.output_dir / f"bash-{secrets.token_hex(8)}.log"
            return self.path.open("wb")
        except OSError as exc:
            self._fail(exc)
            return None

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError as exc:  # the last buffered bytes did not fit
                self._fail(exc)
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
        if truncated and self.path is None and self.log_error is None:
            self._file = self._open()
            self._log(bytes(self.tail))
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
        if self.log_error is not None:
            details["log_error"] = self.log_error
            where = f": {self.path}" if self.path is not None and self.logged else ""
            return f"{text}\n\n[{notice}. Output log incomplete ({self.log_error}){where}]", details
        if self.log_truncated:
            details["log_truncated"] = True
            kept = f"first {format_size(self.logged)} of {format_size(self.total_bytes)}"
            return f"{text}\n\n[{notice}. Output log ({kept}): {self.path}]", details
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
        self.token = secrets.token_hex(6)

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
                env=prepare_command_env(self.ctx.env or dict(os.environ), self.token),
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

        shell_started(proc.pid)
        pump = asyncio.create_task(self._pump(reader))
        updater = asyncio.create_task(self._send_updates())
        exited = asyncio.create_task(proc.wait())
        aborted = asyncio.create_task(self.signal.wait())
        try:
            await asyncio.wait({exited, aborted}, timeout=self.timeout, return_when=asyncio.FIRST_COMPLETED)
            outcome = "exited" if exited.done() else "aborted" if aborted.done() else "timeout"
            if outcome != "exited":
                await asyncio.to_thread(kill_call, self.token, proc.pid)
                await exited
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pump), DRAIN_GRACE_S)
            self.stopped.set()
            self.changed.set()
            await updater
        finally:
            if proc.returncode is None:  # cancelled: leave nothing running, reap the shell
                kill_call(self.token, proc.pid, deadline_s=1.0)
                await asyncio.wait({exited}, timeout=1)
            shell_finished(proc.pid)
            for task in (pump, updater, exited, aborted):
                task.cancel()
            transport.close()
            self.output.close()

        text, details = self.output.finish()
        if self.ctx.scrub is not None:
            text = self.ctx.scrub(text)
            if self.output.path is not None:
                try:
                    _scrub_file(self.output.path, self.ctx.scrub)
                except OSError:  # could not rewrite it (disk full): an unscrubbed log must not stay
                    self.output.path.unlink(missing_ok=True)
                    self.output.path.with_suffix(".scrub").unlink(missing_ok=True)
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
    """Rewrite a saved output file through the redactor, in bounded pieces.

    Secrets hold no whitespace and no punctuation beyond ``-_.``, so the text is cut only at a
    character no secret contains (a newline, a space, a quote, a NUL, ...): a secret is never
    split across two pieces. A run of more than ``_SCRUB_RUN_LIMIT`` characters without such a
    character (no real output has one) is cut where it is."""
    tmp = path.with_suffix(".scrub")
    with path.open("r", encoding="utf-8", errors="replace", newline="") as src, tmp.open("w", encoding="utf-8") as dst:
        carry = ""
        while piece := src.read(_SCRUB_PIECE):
            text = carry + piece
            cut = _safe_cut(text)
            if cut == 0 and len(text) < _SCRUB_RUN_LIMIT:
                carry = text
                continue
            cut = cut or len(text)
            dst.write(scrub(text[:cut]))
            carry = text[cut:]
        dst.write(scrub(carry))
    tmp.replace(path)


def _safe_cut(text: str) -> int:
    """Index just after the last character that cannot be part of a secret (0 if none)."""
    for i in range(len(text) - 1, max(-1, len(text) - 65536), -1):
        ch = text[i]
        if not (ch.isalnum() or ch in "-_.+/="):
            return i + 1
    return 0


def _join(output: str, message: str) -> str:
    """Pi's abort/timeout text: the output (if any), a blank line, the message."""
    return f"{output}\n\n{message}" if output else message


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return str(number)
