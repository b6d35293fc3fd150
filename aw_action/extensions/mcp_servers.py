"""The MCP built-in: the configured servers' tools as agent tools (docs/mcp.md).

At setup, when the run configures ``mcp-servers`` (and only then is the SDK imported), every
server is started at once (``mcp/client.Connection.start``, each within its startup timeout),
its tools filtered (``allowed``/``blocked``), capped (``max-tools`` and ``MAX_SCHEMA_BYTES``,
with a warning), named for every provider (``mcp/names.py``) and registered, before the session
is built, so the model sees them from the first request. A server that does not start ends the
run with exit 2 when it is ``required`` (naming it and the last lines of its stderr), else is
left out with a warning. Two tools that end with one name end the run with exit 2 naming both.
The values of the variables a server is given join the run's redactor. The summary's "Agent access"
note names the servers and says that a workflow step's own sandbox does not apply to them (they
start once, in the run's sandbox) and that a step sees only the tools its ``permissions.mcp``
grants. The servers end with the run: a stdio server is an agent process, killed at the seal
(``kill(-1)`` as the secret holder too when one runs as it: ``harness/guards.py``), then every
connection is closed at ``session_shutdown``.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from aw_action.exits import InvocationError
from aw_action.extensions.api import ExtensionAPI
from aw_action.mcp.config import MAX_SCHEMA_BYTES, McpServer
from aw_action.run.record import AccessNote

if TYPE_CHECKING:
    from aw_action.mcp.client import Connection
    from aw_action.mcp.tools import McpTool
    from aw_action.security.confinement.identity import ToolIdentity


async def setup(api: ExtensionAPI) -> None:
    servers = api.config.mcp_servers
    if not servers:
        return  # no server: the SDK is never imported (tests/cli/test_startup_imports.py)
    from aw_action.mcp.client import Connection, ServerLaunch
    from aw_action.security.confinement.identity import secret_holder
    from aw_action.security.confinement.spawn import Launch

    services = api.services
    sandbox = services.tool_sandbox
    base = Launch(
        env={},
        cwd=api.workspace,
        identity=services.tool_identity,
        confinement=sandbox.bash if sandbox is not None else None,
    )
    holder = secret_holder(services.tool_identity)
    where = ServerLaunch(api.workspace, api.env, services.tool_env, base, holder)
    connections = [Connection(name, spec, where) for name, spec in servers.items()]
    started = await asyncio.gather(*(_start(c) for c in connections))
    live = [c for c, ok in zip(connections, started, strict=True) if ok]
    for connection in connections:  # first: a failed server's stderr may hold what it was given
        services.redactor.add(*(value for value in connection.secrets if value))
        if connection.missing:
            names = ", ".join(dict.fromkeys(connection.missing))
            api.warn(f"MCP server {connection.name}: {names} not set in the environment; the server got it empty")
    try:
        _check_started(api, connections, started)
        tools = _tools(api, live)
    except BaseException:
        await asyncio.gather(*(c.close() for c in live))
        raise
    for tool in tools:
        api.register_tool(tool)
    _note_secrets(api, servers, separate=holder is not None)
    api.state.record.security_notes.append(AccessNote(_access_line(live, holder)))

    async def close(event: object, ctx: object) -> None:
        await asyncio.gather(*(c.close() for c in live))

    api.on("session_shutdown", close)


async def _start(connection: Connection) -> bool:
    from aw_action.mcp.client import McpError

    try:
        connection.tools = await connection.start()
    except McpError as exc:
        connection._failure = str(exc)
        return False
    return True


def _check_started(api: ExtensionAPI, connections: list[Connection], started: list[bool]) -> None:
    for connection, ok in zip(connections, started, strict=True):
        if ok:
            continue
        what = f"MCP server {connection.name} did not start: {connection.failure}"
        if connection.missing:
            what += f" (not set in the environment: {', '.join(dict.fromkeys(connection.missing))})"
        if connection.spec.required:
            raise InvocationError(f"mcp-servers.{connection.name}: {what} (required: true){connection.describe()}")
        api.warn(f"{what}; the run goes on without its tools (set required: true to fail instead)")


def _tools(api: ExtensionAPI, live: list[Connection]) -> list[McpTool]:
    from aw_action.mcp.names import description, parameters, schema_bytes, tool_name
    from aw_action.mcp.tools import McpTool

    out: list[McpTool] = []
    owners: dict[str, str] = {}
    for connection in live:
        spec, server = connection.spec, connection.name
        taken = [t for t in connection.tools if spec.takes(t.name)]
        size, kept = 0, 0
        for tool in taken:
            name = tool_name(server, tool.name)
            text = description(tool.description, server)
            schema, note = parameters(tool.input_schema)
            if note:
                api.warn(f"MCP server {server}: tool {tool.name}: {note}")
            cost = schema_bytes(name, text, schema)
            if kept >= spec.max_tools or size + cost > MAX_SCHEMA_BYTES:
                break
            if name in owners:
                raise InvocationError(
                    f"mcp-servers: the tool name {name} is both {owners[name]} and {server}/{tool.name}; "
                    "rename a server or block one of the tools"
                )
            owners[name] = f"{server}/{tool.name}"
            size, kept = size + cost, kept + 1
            out.append(McpTool(name, text, schema, server, tool.name, connection))
        if kept < len(taken):
            api.warn(
                f"MCP server {server}: {len(taken) - kept} of its {len(taken)} tools left out "
                f"(at most {spec.max_tools} tools and {MAX_SCHEMA_BYTES // 1024} KiB of schemas a server; "
                "name the ones the agent needs in allowed, or raise max-tools)"
            )
    return out


def _access_line(live: list[Connection], holder: ToolIdentity | None) -> str:
    """The summary's "Agent access" line: where the servers run, and what a workflow step sees."""
    kinds = []
    for connection in live:
        spec = connection.spec
        how = "HTTP" if spec.transport == "http" else "stdio"
        if spec.transport == "stdio" and spec.variables() and holder is not None:
            how += f", as {holder.name}"
        kinds.append(f"{connection.name} ({how})")
    listed = ", ".join(kinds) or "none started"
    return (
        f"MCP servers: {listed}; started once for the run, a stdio one in the run's sandbox: a workflow "
        "step's own sandbox does not apply to them, and a step sees only the MCP tools its permissions.mcp grants."
    )


def _note_secrets(api: ExtensionAPI, servers: dict[str, McpServer], separate: bool) -> None:
    """A stdio server given variables runs as a user of its own when the harness can switch
    (``separate``); else as the tools' user, and the agent can read its environment (/proc)."""
    for name, spec in servers.items():
        if spec.transport == "stdio" and spec.variables() and not separate:
            api.warn(
                f"MCP server {name} runs as the agent's user: the agent can read the variables it is given "
                f"({', '.join(spec.variables())})"
            )
