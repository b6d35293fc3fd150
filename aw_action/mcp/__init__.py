"""MCP servers as agent tools (docs/mcp.md).

``config``: the ``mcp-servers`` config models and the action's Claude-style ``mcp-config``
document, checked when the config is resolved. ``names``: provider-safe tool names and schemas.
``results``: a tool result as the model reads it (bounded, redacted, fenced). ``transport`` and
``client``: one connection per server on the official SDK (imported only when a run has servers).
``tools``: each server tool as an ``AgentTool``. Nothing here imports the SDK at import time but
``transport`` and ``client``, which only the MCP built-in extension imports, and only when the
run configures a server.
"""
