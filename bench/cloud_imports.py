"""Whether an anthropic run loads the clouds' SDKs (boto3/botocore for Bedrock, google-auth for
Vertex, azure-identity for Azure OpenAI), which the harness needs only for a run on that cloud:
one aw-harness start under ``python -X importtime`` on the bench server, the modules of those
packages it imported and their import time; beside it, what importing them costs a process.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.model_server import BenchServer, Script
from bench.subjects import aw_harness

CLOUD_PACKAGES = ("boto3", "botocore", "google.auth", "google.oauth2", "azure.identity", "azure.core")
_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


@dataclass(frozen=True)
class CloudImports:
    modules: list[str]
    """Modules of ``CLOUD_PACKAGES`` the anthropic run imported."""
    own_us: int
    """Their own import time in that run (microseconds)."""
    all_modules: int
    """Modules the run imported in all."""
    cost_s: float
    """Spawn to done of a process importing the clouds' SDKs, minus that of a bare interpreter."""


def _is_cloud(name: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in CLOUD_PACKAGES)


def _spawn_s(code: str) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.monotonic() - started


def probe(root: Path) -> CloudImports:
    server = BenchServer("anthropic").start()
    try:
        server.reset(Script(0))
        launch = aw_harness(root, "anthropic", server.base_url)
        argv = [launch.argv[0], "-X", "importtime", *launch.argv[1:]]
        done = subprocess.run(argv, env=launch.env, cwd=launch.cwd, capture_output=True, text=True, check=True)
    finally:
        server.stop()
    rows = [(int(m.group(1)), m.group(4)) for m in map(_LINE.match, done.stderr.splitlines()) if m]
    cloud = [(us, name) for us, name in rows if _is_cloud(name)]
    bare = min(_spawn_s("pass") for _ in range(3))
    loaded = min(_spawn_s("import boto3, google.auth.transport.requests, azure.identity") for _ in range(3))
    return CloudImports([name for _, name in cloud], sum(us for us, _ in cloud), len(rows), loaded - bare)


def table(result: CloudImports) -> list[str]:
    named = ", ".join(result.modules[:8]) or "none"
    return [
        "### The clouds' SDKs in an anthropic run",
        "",
        "One aw-harness start (anthropic wire) under `python -X importtime` (bench/cloud_imports.py):",
        "",
        "| | |",
        "| --- | --: |",
        f"| modules the run imported | {result.all_modules} |",
        f"| of them from boto3, botocore, google-auth, azure-identity | {len(result.modules)} ({named}) |",
        f"| their import time in that run | {result.own_us / 1000:.0f} ms |",
        f"| what importing the three costs a process (spawn to done, minus a bare interpreter's) "
        f"| {result.cost_s * 1000:.0f} ms |",
        "",
    ]
