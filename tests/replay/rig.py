"""A recorded run to replay: the real CLI through a real SDK (Anthropic Messages, OpenAI Chat
Completions) against a local wire-format server, in a git workspace made the same way each time.

The script's four turns change the workspace step by step (so ``--until`` can be checked by what
is on disk), and its third tool call prints the provider key the model was given: the records
hold it redacted, and the replay must reproduce the redacted result without ever knowing it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import CliRun, base_env, run_cli, write_run_files
from tests.servers import anthropic as ant
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer

KEY = "sk-replay-SECRET-4f1c9a7e2b"
Call = tuple[str, dict[str, Any]]
SCRIPT: list[tuple[str, list[Call]]] = [
    ("Writing the first file.", [("write", {"path": "a.txt", "content": "one\n"})]),
    ("Appending a line.", [("bash", {"command": "echo two >> a.txt && cat a.txt"})]),
    ("Reading both.", [("bash", {"command": f"cat a.txt notes.txt && printf '%s\\n' '{KEY}'"})]),
    ("All done: a.txt holds two lines.", []),
]
"""What the model answers, turn by turn: text and tool calls."""
PROMPT = "Write a.txt, append to it, then read it with notes.txt."


@dataclass(frozen=True)
class Sdk:
    name: str
    model: str
    reply: Callable[[str, list[Call]], Reply]
    env: Callable[[str], dict[str, str]]


SDKS = [
    Sdk(
        "anthropic",
        "claude-sonnet-4.6",
        lambda text, calls: ant.stream_reply(text=text, tool_calls=calls or None, use=ant.usage(120, 30)),
        lambda url: {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url},
    ),
    Sdk(
        "openai",
        "gpt-4o",
        lambda text, calls: oai.chat_stream_reply(text=text, tool_calls=calls or None, model="gpt-4o"),
        lambda url: {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url + "/v1"},
    ),
]


def make_workspace(path: Path) -> Path:
    """The workspace every recording starts from: a git repository with one committed file."""
    path.mkdir(parents=True)
    (path / "notes.txt").write_text("alpha\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    for args in (["init", "-q"], ["add", "notes.txt"], ["commit", "-qm", "start"]):
        subprocess.run([*git, *args], cwd=path, check=True, capture_output=True)
    return path


@dataclass(frozen=True)
class Recorded:
    sdk: Sdk
    records: Path
    workspace: Path
    run: CliRun
    requests: int


def record(tmp: Path, sdk: Sdk, script: list[tuple[str, list[Call]]] = SCRIPT) -> Recorded:
    """One run of ``script`` through ``sdk``'s real client; its records in ``tmp/out``."""
    workspace = make_workspace(tmp / "ws")
    cfg, prompt = write_run_files(tmp, {"engine": {"id": "aw", "model": sdk.model}}, PROMPT)
    with WireServer() as server:
        server.script(*(sdk.reply(text, calls) for text, calls in script))
        env = base_env(tmp, **sdk.env(server.url), AW_RETRY_MAX_ATTEMPTS="1")
        run = run_cli(["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"], env, cwd=workspace)
        requests = len(server.requests)
    assert run.returncode == 0, run.stderr
    return Recorded(sdk, tmp / "out", workspace, run, requests)


@dataclass(frozen=True)
class Replayed:
    run: CliRun
    requests: int
    """Requests a live local server received while the replay ran (its base URL was set)."""

    @property
    def report(self) -> dict[str, Any]:
        return self.run.result


def replay(tmp: Path, records: Path, *args: str, workspace: Path | None = None, **extra: str) -> Replayed:
    """``aw-harness replay records`` in ``workspace`` (a fresh one by default), with no key in
    its environment and every provider's base URL pointing at a server that counts requests."""
    ws = workspace or make_workspace(tmp / "replay-ws")
    with WireServer() as server:
        urls = {"ANTHROPIC_BASE_URL": server.url, "OPENAI_BASE_URL": server.url + "/v1"}
        env = base_env(tmp, **{**urls, **extra})
        env["AW_OUTPUT_DIR"] = str(tmp / "replay-out")
        run = run_cli(["replay", str(records), "--workspace", str(ws), "--format", "jsonl", *args], env, cwd=ws)
        return Replayed(run, len(server.requests))


def digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def record_faux(tmp: Path, script: list[tuple[str, list[Call]]] = SCRIPT[:2] + SCRIPT[3:]) -> Recorded:
    """The same kind of run through the scripted provider (no server): for what does not depend
    on a provider's wire format."""
    workspace = make_workspace(tmp / "ws")
    turns = [{"text": text, "tool_calls": [{"name": n, "arguments": a} for n, a in calls]} for text, calls in script]
    cfg, prompt = write_run_files(tmp, {"engine": {"id": "aw", "model": "faux/scripted"}}, PROMPT, turns)
    run = run_cli(["--config", str(cfg), "--prompt", str(prompt), "--format", "jsonl"], base_env(tmp), cwd=workspace)
    assert run.returncode == 0, run.stderr
    return Recorded(SDKS[0], tmp / "out", workspace, run, 0)


def refix_manifest(folder: Path, name: str) -> None:
    """Record ``name``'s current digest in ``folder``'s records.sha256, as if its run wrote it so."""
    manifest = folder / "records.sha256"
    digest = hashlib.sha256((folder / name).read_bytes()).hexdigest()
    kept = [line for line in manifest.read_text().splitlines() if not line.endswith(f"  {name}")]
    manifest.write_text("".join(f"{line}\n" for line in [*kept, f"{digest}  {name}"]))
