"""An MCP server in the standard library alone (any ``python3`` runs it, whatever user): one tool,
``getenv``, answering with a variable of its environment. For the tests that run a server as
another user, who cannot reach the checkout's interpreter and its SDK."""

import json
import os
import sys

for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method = request["method"]
    if method == "initialize":
        result = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
        result = {
            "tools": [
                {"name": "getenv", "description": "A variable of the server's environment.", "inputSchema": schema}
            ]
        }
    elif method == "tools/call":
        name = request["params"]["arguments"]["name"]
        text = f"{name}={os.environ.get(name, '(unset)')} uid={os.getuid()}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\n")
    sys.stdout.flush()
