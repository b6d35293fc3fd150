"""Helpers for the safe-output tests: a real git repository, the tools' context, a tool call the
way the agent loop makes it (JSON Schema check first), and reading the records back."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema

from aw_action.agent.tools import AgentTool, ToolContext, ToolInvocation, ToolResult
from aw_action.ai.types import AbortSignal
from aw_action.safe_outputs.records import RECORDS_FILE

GIT_ENV = {
    "GIT_AUTHOR_NAME": "dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
}


def git(repo: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")}, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=repo, env=env, input=stdin, capture_output=True, check=True)
    return done.stdout.decode().strip()


def make_repo(path: Path) -> Path:
    """A repository with a text file, an executable script, a binary file and a file to delete."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# Hello\n\nline two\n")
    (path / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (path / "run.sh").chmod(0o755)
    (path / "logo.bin").write_bytes(bytes(range(256)) * 4)
    (path / "old.txt").write_text("to be deleted\n")
    (path / ".gitignore").write_text("build/\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


async def _ignore(result: ToolResult) -> None:
    return None


async def call(tool: AgentTool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """What the agent loop does: validate against the tool's schema, then execute."""
    jsonschema.validate(args, tool.parameters)
    return await tool.execute(ToolInvocation("call-1", args, AbortSignal(), _ignore, ctx))


async def execute(tool: AgentTool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """The tool alone, without the loop's schema check: its own validation must hold too."""
    return await tool.execute(ToolInvocation("call-1", args, AbortSignal(), _ignore, ctx))


def records(output_dir: Path) -> list[dict[str, Any]]:
    path = output_dir / RECORDS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def tools_by_name(tools: list[AgentTool]) -> dict[str, AgentTool]:
    return {t.name: t for t in tools}
