"""An MCP server in the standard library alone (any ``python3`` runs it, whatever user): one tool,
``getenv``, answering with a variable of its environment (and ``hang``, never answering). With
``RAW_SERVER_LINGER=<token>`` it ignores SIGTERM and starts a child (``<token>`` in its argv) in a
session of its own that ignores it too. For the tests that run a server as
another user, who cannot reach the checkout's interpreter and its SDK."""

import json
import os
import signal
import subprocess
import sys
import time

if os.environ.get("RAW_SERVER_LINGER"):  # a server that means to outlive the run: it ignores SIGTERM and
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # starts a child in a session of its own that does too
    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    child = subprocess.Popen([sys.executable, "-c", script, os.environ["RAW_SERVER_LINGER"]], start_new_session=True)

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
                {"name": "getenv", "description": "A variable of the server's environment.", "inputSchema": schema},
                {"name": "hang", "description": "Never answers.", "inputSchema": schema},
            ]
        }
    elif method == "tools/call":
        if request["params"]["name"] == "hang":
            time.sleep(600)
        name = request["params"]["arguments"]["name"]
        text = f"{name}={os.environ.get(name, '(unset)')} uid={os.getuid()}"
        if os.environ.get("RAW_SERVER_LINGER"):
            text += f" child={child.pid}"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\n")
    sys.stdout.flush()
