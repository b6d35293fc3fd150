"""What MCP costs (issue 33), reported, never asserted:

1. one tool call: ``echo`` of an MCP server over stdio and over streamable HTTP (both the test
   server on the SDK, ``tests/mcp/server.py``), beside the bash tool running ``echo`` (median
   and 90th percentile over N calls, through the same ``AgentTool.execute`` the loop calls);
2. a server's start: connect, ``initialize`` and ``tools/list`` (stdio: the Python process too);
3. a run's start with no server configured, against the same run on another checkout (``--base
   PATH``, e.g. /work/main: today's code): the CLI with the scripted provider answering at once,
   wall time over N runs; and the modules a start imports (the MCP SDK must not be among them).

    .venv/bin/python bench/bench_mcp.py [N] [--base PATH]
"""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from aw_action.agent.tools import AgentTool, ToolContext, ToolInvocation  # noqa: E402
from aw_action.ai.types import AbortSignal  # noqa: E402
from aw_action.mcp.client import Connection, ServerLaunch  # noqa: E402
from aw_action.mcp.config import McpServer  # noqa: E402
from aw_action.mcp.tools import McpTool  # noqa: E402
from aw_action.tools.bash import BashTool  # noqa: E402
from bench.subjects import scripted_run  # noqa: E402

SERVER = ROOT / "tests" / "mcp" / "server.py"


def stats(samples: list[float]) -> str:
    samples = sorted(samples)
    return f"median {statistics.median(samples):7.1f} ms   p90 {samples[max(0, int(len(samples) * 0.9) - 1)]:7.1f} ms"


async def _nothing(_: object) -> None:
    return None


async def calls(n: int, tool: AgentTool, args: dict[str, Any], ctx: ToolContext) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await tool.execute(ToolInvocation("c", args, AbortSignal(), _nothing, ctx))
        out.append((time.perf_counter() - started) * 1000)
    return out


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def tool_calls(n: int) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    ctx = ToolContext(cwd=work, output_dir=work / "out")
    (work / "out").mkdir()
    where = ServerLaunch(workspace=work, env={}, base_env={"PATH": os.environ["PATH"]})
    print(f"1. one tool call (N={n})")
    print(f"   bash echo                {stats(await calls(n, BashTool(), {'command': 'echo hi'}, ctx))}")
    stdio = Connection("s", McpServer.model_validate({"command": sys.executable, "args": [str(SERVER)]}), where)
    started = time.perf_counter()
    await stdio.start()
    stdio_start = (time.perf_counter() - started) * 1000
    tool = McpTool("mcp__s__echo", "", {}, "s", "echo", stdio)
    print(f"   MCP stdio echo           {stats(await calls(n, tool, {'text': 'hi'}, ctx))}")
    await stdio.close()
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "ok", "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
            await asyncio.sleep(0.05)
        http = Connection("h", McpServer.model_validate({"url": f"http://127.0.0.1:{port}/mcp"}), where)
        started = time.perf_counter()
        await http.start()
        http_start = (time.perf_counter() - started) * 1000
        tool = McpTool("mcp__h__echo", "", {}, "h", "echo", http)
        print(f"   MCP streamable HTTP echo {stats(await calls(n, tool, {'text': 'hi'}, ctx))}")
        await http.close()
    finally:
        proc.kill()
        proc.wait()
    print("2. a server's start (connect, initialize, tools/list)")
    print(f"   stdio (a Python server on the SDK, its interpreter included) {stdio_start:7.1f} ms")
    print(f"   streamable HTTP (the server already up)                      {http_start:7.1f} ms")


def run_start(n: int, checkout: Path, label: str) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-mcp-run-"))
    argv = scripted_run(work, [{"text": "done"}])
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    env.update(PYTHONPATH=str(checkout), AW_OUTPUT_DIR=str(work / "out"), GITHUB_WORKSPACE=str(work / "ws"))
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        subprocess.run(argv, env=env, cwd=work / "ws", capture_output=True, check=True, timeout=120)
        samples.append((time.perf_counter() - started) * 1000)
    code = "import sys, aw_action.cli, aw_action.extensions.builtins; print(len(sys.modules), 'mcp' in sys.modules)"
    modules = subprocess.run([sys.executable, "-c", code], env=env, cwd=work, capture_output=True, text=True)
    count, mcp = modules.stdout.split()
    print(f"   {label:<28} {stats(samples)}   modules at start {count}, MCP SDK imported: {mcp}")


def main() -> None:
    args = sys.argv[1:]
    base = None
    if "--base" in args:
        base = Path(args[args.index("--base") + 1]).resolve()
        del args[args.index("--base") : args.index("--base") + 2]
    n = int(args[0]) if args else 30
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    asyncio.run(tool_calls(n))
    runs = max(3, n // 6)
    print(f"3. a run's start with no MCP server (the whole CLI run, N={runs})")
    run_start(runs, ROOT, "this checkout")
    if base is not None:
        run_start(runs, base, f"base {base.name}")


if __name__ == "__main__":
    main()
