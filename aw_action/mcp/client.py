"""One connection to one MCP server, on the official SDK's ``ClientSession``.

``Connection.start`` opens the transport (stdio through ``transport.stdio_transport``, or
streamable HTTP through the SDK's ``streamable_http_client``), initialises the session and lists
the tools, all within the server's startup timeout; ``call`` runs one tool call within its tool
timeout, racing the run's abort signal; ``close`` ends the session and the server. The session
lives in a task of its own (the SDK's task groups must be entered and left by one task), so a
call from any task of the run's loop is answered while the connection is open, and a crash of
the server ends every pending call with an error instead of a hang.

What the client declares (``ClientSession``): no sampling and no elicitation (the SDK declares a
capability only when a callback is given: a server cannot spend the run's budget on the model
or put words in its mouth), roots = the workspace alone. ``notifications/tools/list_changed``
is ignored: the tools are the ones listed at start for the whole run (docs/mcp.md).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.client._transport import TransportStreams
from mcp.client.session import ClientRequestContext, ClientSession

from aw_action.ai.types import AbortSignal
from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.config import McpServer, resolve_values
from aw_action.mcp.transport import StderrTail, stdio_transport
from aw_action.security.confinement import spawn
from aw_action.security.confinement.identity import ToolIdentity

CLOSE_TIMEOUT_S = 5.0
CLIENT_VERSION = "0.1"
"""What ``initialize`` says of the client (the package's metadata costs ~75 ms to read)."""
MAX_LIST_PAGES = 20
"""``tools/list`` pages read at most (a server that pages forever is cut here)."""


class McpError(Exception):
    """The server failed (did not start, crashed, timed out, answered with an error); the
    message says which, with the last lines of a stdio server's stderr where they help."""


@dataclass
class ServerLaunch:
    """Where and as whom a stdio server runs; the env is complete (``Launch.env``)."""

    workspace: Path
    env: Mapping[str, str]
    """The harness's environment, where the server's ``env-vars`` and ``${NAME}`` come from."""
    base_env: Mapping[str, str]
    """The tools' environment (the core set): what every stdio server starts from."""
    launch: spawn.Launch | None = None
    """The identity and confinement of the agent's commands; ``env``/``cwd`` are replaced."""
    secret_holder: ToolIdentity | None = None
    """The user a stdio server given variables runs as instead of the tools' (``identity.
    secret_holder``); ``None``: it runs as the tools' user, and the agent can read them."""


@dataclass
class Connection:
    name: str
    spec: McpServer
    where: ServerLaunch
    stderr: StderrTail = field(default_factory=StderrTail)
    tools: list[types.Tool] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    """The values of the variables this server was given (for the run's redactor)."""
    missing: list[str] = field(default_factory=list)
    """The variables its config names that the harness's environment does not hold."""
    _task: asyncio.Task[None] | None = None
    _session: ClientSession | None = None
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _failure: str | None = None
    _headers: dict[str, str] = field(default_factory=dict)

    @property
    def failure(self) -> str | None:
        return self._failure

    def describe(self) -> str:
        tail = self.stderr.text()
        return f"\n--- last lines of its stderr ---\n{tail}" if tail else ""

    async def start(self) -> list[types.Tool]:
        """Connect, initialise and list the tools within ``startup-timeout``; ``McpError`` else."""
        ready: asyncio.Future[list[types.Tool]] = asyncio.get_running_loop().create_future()
        self._task = asyncio.ensure_future(self._run(ready))
        try:
            return await asyncio.wait_for(asyncio.shield(ready), self.spec.startup_timeout)
        except TimeoutError:
            await self.close()
            raise McpError(f"did not start within {self.spec.startup_timeout:g} s (startup-timeout)") from None
        except McpError:
            await self.close()
            raise

    async def _run(self, ready: asyncio.Future[list[types.Tool]]) -> None:
        try:
            async with self._transport() as (read, write):
                session = ClientSession(
                    read,
                    write,
                    list_roots_callback=self._roots,
                    client_info=types.Implementation(name="aw-harness", version=CLIENT_VERSION),
                )
                async with session:
                    await session.initialize()
                    tools = await _list_tools(session)
                    self._session = session
                    if not ready.done():
                        ready.set_result(tools)
                    await self._stop.wait()
        except BaseException as exc:  # the server's failure, whatever it is, is the connection's end
            self._failure = _reason(exc)
            if isinstance(exc, Exception) and not ready.done() and await self._legacy_sse():
                from aw_action.mcp.legacy_sse import REFUSAL

                self._failure = REFUSAL
            if not ready.done():
                ready.set_exception(McpError(self._failure))
            if not isinstance(exc, Exception):
                raise
        finally:
            self._session = None
            if self._failure is None and not self._stop.is_set():
                self._failure = "the connection closed"

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[TransportStreams]:
        spec = self.spec
        if spec.transport == "http":
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            headers, missing = resolve_values(spec.headers, self.where.env)
            self.missing += missing
            if spec.bearer_token_env_var:
                token = self.where.env.get(spec.bearer_token_env_var)
                if token is None:
                    self.missing.append(spec.bearer_token_env_var)
                headers["Authorization"] = f"Bearer {token or ''}"
                self.secrets.append(token or "")
            self.secrets += [v for k, v in headers.items() if _named(spec.headers.get(k, ""))]
            self._headers = headers
            assert spec.url is not None
            async with (
                create_mcp_http_client(headers=headers) as client,
                streamable_http_client(spec.url, http_client=client) as streams,
            ):
                yield streams
            return
        assert spec.command is not None
        env = dict(self.where.base_env)
        values, missing = resolve_values(spec.env, self.where.env)
        passed = {name: self.where.env[name] for name in spec.env_vars if name in self.where.env}
        self.missing += [*(name for name in spec.env_vars if name not in self.where.env), *missing]
        env.update(passed)
        env.update(values)
        self.secrets += [*passed.values(), *(v for k, v in values.items() if _named(spec.env[k]))]
        cwd = self.where.workspace / spec.cwd if spec.cwd else self.where.workspace
        base = self.where.launch
        identity = base.identity if base is not None else None
        if spec.variables() and self.where.secret_holder is not None:
            identity = self.where.secret_holder  # the agent cannot read its environment
            env.update(HOME=identity.home, USER=identity.name, LOGNAME=identity.name)
        launch = spawn.Launch(
            env=env,
            cwd=cwd,
            identity=identity,
            confinement=base.confinement if base is not None else None,
            granted=frozenset(spec.granted()),
        )
        async with stdio_transport([spec.command, *spec.args], launch, self.stderr) as streams:
            yield streams

    async def _legacy_sse(self) -> bool:
        """Whether this HTTP server, which refused to start, speaks the legacy HTTP+SSE transport."""
        if self.spec.transport != "http" or self.spec.url is None:
            return False
        from aw_action.mcp.legacy_sse import is_legacy_sse

        return await is_legacy_sse(self.spec.url, self._headers)

    async def _roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=self.where.workspace.resolve().as_uri(), name="workspace")])

    async def call(self, tool: str, arguments: dict[str, Any], signal: AbortSignal) -> types.CallToolResult:
        """One ``tools/call`` within ``tool-timeout``; ``McpError`` when the server fails, times
        out or the run is aborted (the request is cancelled with the SDK's ``notifications/cancelled``)."""
        session = self._session
        if session is None:
            raise McpError(f"the server is not connected ({self._failure or 'it ended'})")
        timeout = self.spec.tool_timeout
        call = asyncio.ensure_future(session.call_tool(tool, arguments))
        aborted = asyncio.ensure_future(signal.wait())
        ended = asyncio.ensure_future(self._ended())
        try:
            done, _ = await asyncio.wait({call, aborted, ended}, timeout=timeout, return_when="FIRST_COMPLETED")
        finally:
            for task in (aborted, ended):
                task.cancel()
        if call in done:
            try:
                return call.result()
            except Exception as exc:
                raise McpError(_reason(exc)) from None
        call.cancel()
        with contextlib.suppress(BaseException):
            await call
        if aborted in done:
            raise McpError(f"cancelled ({signal.reason or 'the run was stopped'})")
        if ended in done:
            raise McpError(f"the server ended during the call ({self._failure or 'connection closed'})")
        raise McpError(f"no answer within {timeout:g} s (tool-timeout)")

    async def _ended(self) -> None:
        if self._task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.shield(self._task)

    async def close(self) -> None:
        """End the session and the server (bounded: ``CLOSE_TIMEOUT_S``)."""
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), CLOSE_TIMEOUT_S)
        except (TimeoutError, Exception):
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, CLOSE_TIMEOUT_S)


async def _list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    for _ in range(MAX_LIST_PAGES):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        result = await session.list_tools(params=params)
        tools += result.tools
        cursor = result.next_cursor
        if not cursor:
            break
    return tools


def _named(value: str) -> bool:
    return "${" in value


def _reason(exc: BaseException) -> str:
    """One line for a failure, from inside the SDK's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found: {exc.filename or text}"
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
