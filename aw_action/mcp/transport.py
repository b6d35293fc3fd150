"""The stdio transport: a server process started through the one spawn path.

The SDK's ``stdio_client`` starts its process with ``anyio.open_process``; a server the agent's
session drives is an agent process, so it starts here instead, through
``security/confinement/spawn.popen`` (the tools' user, the environment its config grants, the
run's sandbox, no inherited descriptor), in a session of its own. The SDK gets the same pair of
streams ``stdio_client`` yields (``TransportStreams``) and speaks its protocol over them.

What a hostile server cannot do here: send a message longer than ``MAX_MESSAGE_BYTES`` (the
connection ends, each pending call with an error), fill the harness's memory with stderr (only
the last ``STDERR_LINES`` lines of at most ``STDERR_LINE_CHARS`` are kept, for the messages),
or outlive the connection (its process group is killed on close: ``stop``).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
from mcp.client._transport import TransportStreams
from mcp.shared.message import SessionMessage

from aw_action.security.confinement import spawn

MAX_MESSAGE_BYTES = 8 * 1024 * 1024
"""One JSON-RPC message from a server, at most (a ``tools/list`` of a thousand tools fits)."""
STDERR_LINES = 20
STDERR_LINE_CHARS = 400
STOP_GRACE_S = 1.0
"""After its stdin closes, how long a server has to exit before its process group is killed."""


class StderrTail:
    """The last lines a server wrote on stderr, bounded."""

    def __init__(self) -> None:
        self.lines: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)

    def feed(self, chunk: bytes, partial: list[str]) -> None:
        text = partial.pop() + chunk.decode("utf-8", "replace") if partial else chunk.decode("utf-8", "replace")
        *whole, rest = text.split("\n")
        for line in whole:
            self.lines.append(line[:STDERR_LINE_CHARS])
        partial.append(rest[-STDERR_LINE_CHARS:])

    def text(self) -> str:
        return "\n".join(line for line in self.lines if line.strip())


def _kill(proc: Any) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


@contextlib.asynccontextmanager
async def stdio_transport(argv: list[str], launch: spawn.Launch, stderr: StderrTail) -> AsyncIterator[TransportStreams]:
    """The server started and connected; its process group killed when the block ends."""
    proc = spawn.popen(argv, launch, stdin=spawn.PIPE, stdout=spawn.PIPE, stderr=spawn.PIPE, new_session=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    loop = asyncio.get_running_loop()
    try:
        reader = asyncio.StreamReader(limit=MAX_MESSAGE_BYTES, loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader, loop=loop), proc.stdout)
        errors = asyncio.StreamReader(loop=loop)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(errors, loop=loop), proc.stderr)
        w_transport, w_protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, proc.stdin)
        writer = asyncio.StreamWriter(w_transport, w_protocol, None, loop)
    except BaseException:
        _kill(proc)
        proc.wait()
        raise
    read_send, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_receive = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_stdout() -> None:
        async with read_send:
            while True:
                try:
                    line = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError:
                    return  # the server closed stdout (ended)
                except (asyncio.LimitOverrunError, ValueError):
                    stderr.lines.append(f"(aw-harness: a message over {MAX_MESSAGE_BYTES} bytes; connection closed)")
                    return
                if not line.strip():
                    continue
                try:
                    item: SessionMessage | Exception = SessionMessage(
                        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    )
                except ValueError as exc:
                    item = exc
                try:
                    await read_send.send(item)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return

    async def pump_stderr() -> None:
        partial: list[str] = []
        while chunk := await errors.read(4096):
            stderr.feed(chunk, partial)

    async def pump_stdin() -> None:
        async with write_receive:
            async for message in write_receive:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                try:
                    writer.write(data.encode())
                    await writer.drain()
                except (ConnectionError, OSError):
                    return

    tasks = [asyncio.ensure_future(pump_stdout()), asyncio.ensure_future(pump_stderr())]
    tasks.append(asyncio.ensure_future(pump_stdin()))
    try:
        yield read_stream, write_stream
    finally:
        with contextlib.suppress(Exception):
            writer.close()
        deadline = loop.time() + STOP_GRACE_S
        while proc.poll() is None and loop.time() < deadline:
            await asyncio.sleep(0.02)
        _kill(proc)  # whatever it started in its session too
        proc.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for stream in (read_stream, write_stream):
            stream.close()
