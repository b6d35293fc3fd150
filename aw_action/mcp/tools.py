"""Each tool of a connected server as an ``AgentTool`` (``agent/tools.py``'s protocol).

``execute`` calls the server through its ``Connection`` (``client.py``): a failure of the server
(it crashed, timed out, the run was stopped) or a result the server flags ``isError`` raises
``ToolError``, which the loop gives the model as the tool's error. A call counts as any tool call
does (the tool-call budget, the ledger's time, the tokens of its result in the next request).
``details`` says the server and the tool (the transcript, the summary's tool list and the
replay record read them).
"""

from __future__ import annotations

from typing import Any

from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.lazy_dataclass import dataclass
from aw_action.mcp.client import Connection, McpError
from aw_action.mcp.results import for_model, result_text


@dataclass
class McpTool:
    name: str
    description: str
    parameters: dict[str, Any]
    server: str
    tool: str
    connection: Connection

    async def execute(self, call: ToolInvocation) -> ToolResult:
        details: dict[str, Any] = {"mcp_server": self.server, "mcp_tool": self.tool}
        try:
            result = await self.connection.call(self.tool, call.args, call.signal)
        except McpError as exc:
            raise ToolError(f"MCP server {self.server}: {self.tool} failed: {exc}") from None
        text, cut = for_model(result_text(result), self.server, self.tool, call.ctx.scrub)
        if result.is_error:
            raise ToolError(f"MCP server {self.server}: {self.tool} reported an error:\n{text}")
        return ToolResult.text(text, **details, **({"truncation": cut} if cut["truncated"] else {}))
