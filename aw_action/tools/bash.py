"""The ``bash`` tool: run one shell command and report its output (Pi's ``bash``).

Contract:
- ``bash -c command`` runs in its own session/process group (so a timeout or abort can kill the
  whole tree), in ``ctx.cwd``, with the environment ``ctx.env`` (the process's when empty) plus
  the ``AW_AGENT_PROCESS`` marker (``processes.py``), and stdin at ``/dev/null``; stdout and
  stderr share one pipe, so they interleave as a terminal shows them. It starts through
  ``security/confinement/spawn.py``: as ``ctx.identity``, behind the exec wrapper (``no_new_privs``, and the
  kernel sandbox ``ctx.bash_confinement``; exit 126 with a ``aw-harness sandbox:`` line when it
  cannot be applied).
- The call ends when the shell exits. Output still arriving from background jobs is collected
  for ``DRAIN_GRACE_S`` more, then the pipe is closed; background jobs are not killed (an agent
  may start a server in one call and use it in the next). They end with the run:
  ``processes.kill_all_agent_processes()``.
- The result keeps the HEAD and the TAIL of the output, 256 lines / 10 KiB in all (Codex's
  limits; ``bash_output``). When output is cut, the full output is saved as
  ``ctx.output_dir/bash-<16 hex>.log`` and a footer says which lines are shown and where the file
  is. Memory stays bounded: only the head and a rolling tail are held, the rest goes straight to
  that file, which keeps at most ``bash_output.MAX_LOG_BYTES`` (the footer then says so), so a
  command printing gigabytes fills neither memory nor the disk.
- No repeated output: a cut output identical to one an earlier call of this tool instance (one
  per session) returned is not sent again; the result says which call it repeats and where its
  full copy is.
- Failures raise ``ToolError`` whose text is the (truncated) output followed by
  ``Command exited with code N``, ``Command timed out after N seconds`` or ``Command aborted``;
  a confined command whose exit code and output look like a refusal gets one more line naming
  the sandbox mode and what it forbids (``security/confinement/sandbox_denial.py``: likely, not certain).
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
from typing import IO, Any

from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.security.confinement import spawn
from aw_action.security.confinement.containment import budget_note
from aw_action.security.confinement.sandbox import UNCONFINED
from aw_action.security.confinement.sandbox_denial import denial_line, likely_denied
from aw_action.tools.bash_output import CommandOutput
from aw_action.tools.processes import kill_call, prepare_command_env, shell_finished, shell_started
from aw_action.tools.truncate import HEAD_TAIL_MAX_BYTES, HEAD_TAIL_MAX_LINES

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 120.0
MAX_TIMEOUT_S = 600.0
UPDATE_INTERVAL_S = 0.1
DRAIN_GRACE_S = 0.5
_READ_CHUNK = 64 * 1024
_SCRUB_PIECE = 1024 * 1024
_SCRUB_RUN_LIMIT = 4 * 1024 * 1024


def _format_seconds(seconds: float) -> str:
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


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
        self._cut_outputs: dict[str, str] = {}
        """SHA-256 of each output that was cut -> the id of the call that returned it."""

    @property
    def description(self) -> str:
        return (
            "Execute a bash command in the current working directory. Returns stdout and stderr. "
            f"Output over {HEAD_TAIL_MAX_LINES} lines or {HEAD_TAIL_MAX_BYTES // 1024}KB keeps its first and "
            "last lines; the full output is then saved to a file whose path is given. Optionally provide "
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

    async def execute(self, call: ToolInvocation) -> ToolResult:
        timeout = self._timeout(call.args.get("timeout"))
        call.ensure_running("Command")
        if not call.ctx.cwd.is_dir():
            raise ToolError(f"Working directory does not exist: {call.ctx.cwd}\nCannot execute bash commands.")
        return await _Run(call, timeout, self._cut_outputs).run()


class _Run:
    """One command execution: process, output pump, update throttle and the outcome race."""

    def __init__(self, call: ToolInvocation, timeout: float, cut_outputs: dict[str, str]) -> None:
        self.cut_outputs = cut_outputs
        self.call_id = call.id
        self.command: str = call.args["command"]
        self.timeout = timeout
        self.signal = call.signal
        self.on_update = call.on_update
        self.ctx = call.ctx
        self.output = CommandOutput(call.ctx.output_dir, records=call.ctx.records)
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
            launch = spawn.Launch(
                env=prepare_command_env(self.ctx.env or dict(os.environ), self.token),
                cwd=self.ctx.cwd,
                identity=self.ctx.identity,
                confinement=self.ctx.bash_confinement or UNCONFINED,
            )
            proc = await spawn.start(
                ["bash", "-c", self.command], launch, stdout=write_fd, stderr=spawn.STDOUT, new_session=True
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
                await asyncio.to_thread(kill_call, self.token, spawn.process_group(proc))
                await exited
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(pump), DRAIN_GRACE_S)
            self.stopped.set()
            self.changed.set()
            await updater
        finally:
            if proc.returncode is None:  # cancelled: leave nothing running, reap the shell
                kill_call(self.token, spawn.process_group(proc), deadline_s=1.0)
                await asyncio.wait({exited}, timeout=1)
            shell_finished(proc.pid)
            for task in (pump, updater, exited, aborted):
                task.cancel()
            transport.close()
            self.output.close()

        text, details = self.output.finish()
        if details["truncated"]:
            digest = self.output.digest.hexdigest()
            earlier = self.cut_outputs.setdefault(digest, self.call_id)
            if earlier != self.call_id:
                text = self.output.repeat_notice(earlier)
                details["repeats_call"] = earlier
        if self.ctx.scrub is not None:
            scrub = self.ctx.scrub
            text = scrub(text)
            self.output.rewrite_log(lambda source, target: _scrub_stream(source, target, scrub))
        else:
            self.output.adopt_log()
        code = proc.returncode
        budget = budget_note(text, self.ctx.identity, (self.ctx.bash_confinement or UNCONFINED).nproc)
        if budget is not None:
            text = _join(text, budget[0])
            details["process_budget"] = {"reached": True, "tasks": budget[1]}
        if outcome == "aborted":
            raise ToolError(_join(text, "Command aborted"))
        if outcome == "timeout":
            raise ToolError(_join(text, f"Command timed out after {_format_seconds(self.timeout)} seconds"))
        text = text or "(no output)"
        if code is not None and code < 0:
            raise ToolError(self._failed(text, code, f"Command was killed by signal {_signal_name(-code)}"))
        if code:
            raise ToolError(self._failed(text, code, f"Command exited with code {code}"))
        return ToolResult.text(text, exit_code=code, **details)

    def _failed(self, text: str, code: int, ending: str) -> str:
        """A failed command's result; with a line naming the sandbox when its output and exit
        code look like the sandbox refused it (``security/confinement/sandbox_denial.py``)."""
        confinement = self.ctx.bash_confinement
        message = f"{text}\n\n{ending}"
        if confinement is not None and likely_denied(confinement, code, text):
            message += f"\n{denial_line(confinement)}"
        return message

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


def _scrub_stream(src: IO[str], dst: IO[str], scrub: Callable[[str], str]) -> None:
    """Copy a saved output log through the redactor, in bounded pieces.

    Secrets hold no whitespace and no punctuation beyond ``-_.``, so the text is cut only at a
    character no secret contains (a newline, a space, a quote, a NUL, ...): a secret is never
    split across two pieces. A run of more than ``_SCRUB_RUN_LIMIT`` characters without such a
    character (no real output has one) is cut where it is."""
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
