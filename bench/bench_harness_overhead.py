"""Harness overhead per turn, as a ratio against a peer run in the same command.

Peer: the bare scripted provider streamed N times (the cost of producing the model's answers).
Subject: a whole ``AgentSession`` run of the same N turns, each with one ``write`` tool call,
through the extension runner, ledger and JSONL sink. Reported as time and peak-memory ratios,
never asserted: run it to see whether a change made the core heavier.

    .venv/bin/python bench/bench_harness_overhead.py [TURNS]
"""

from __future__ import annotations

import asyncio
import io
import json
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aw_action.ai.catalog import resolve_model
from aw_action.ai.faux import FauxProvider
from aw_action.ai.types import AbortSignal, ProviderRequest, StreamOptions, UserMessage
from aw_action.harness import Harness


class NoHooks:
    """Provider hooks that change nothing (the peer runs no extension)."""

    async def on_payload(self, payload: dict[str, Any]) -> dict[str, Any]:
        return payload

    async def on_response(self, status: int, headers: dict[str, str]) -> None:
        return None

    async def on_retry(self, attempt: int, status: int | None, delay_s: float, error: str) -> None:
        return None


def script(turns: int) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = [
        {
            "text": f"step {i}",
            "tool_calls": [{"name": "write", "arguments": {"path": f"f{i}.txt", "content": "x" * 200}}],
        }
        for i in range(turns - 1)
    ]
    return [*steps, {"text": "done"}]


async def peer(turns: int) -> None:
    provider = FauxProvider(script(turns))
    request = ProviderRequest(resolve_model("faux/scripted"), "", [UserMessage.of("go")], [], StreamOptions())
    for _ in range(turns):
        async for _event in provider.stream(request, NoHooks(), AbortSignal()):
            pass


async def subject(turns: int, root: Path) -> None:
    (root / "script.json").write_text(json.dumps(script(turns)))
    config = {"engine": {"model": "faux/scripted"}, "harness": {"faux-script": str(root / "script.json")}}
    (root / "config.json").write_text(json.dumps(config))
    (root / "prompt.txt").write_text("go")
    (root / "ws").mkdir(exist_ok=True)
    env = {"AW_OUTPUT_DIR": str(root / "out"), "GITHUB_WORKSPACE": str(root / "ws"), "PATH": "/usr/bin:/bin"}
    result = await Harness(root / "config.json", root / "prompt.txt", env, stderr=io.StringIO()).run()
    assert result.exit_code == 0, result.error


def measure(fn: Callable[[], Awaitable[None]]) -> tuple[float, int]:
    tracemalloc.start()
    started = time.perf_counter()
    asyncio.run(fn())
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    with tempfile.TemporaryDirectory() as tmp:
        peer_t, peer_m = measure(lambda: peer(turns))
        subj_t, subj_m = measure(lambda: subject(turns, Path(tmp)))
    print(f"turns={turns}")
    print(f"peer    (bare scripted provider): {peer_t * 1000:8.1f} ms  peak {peer_m / 1024:8.0f} KiB")
    print(f"subject (whole harness run):      {subj_t * 1000:8.1f} ms  peak {subj_m / 1024:8.0f} KiB")
    print(f"ratio time {subj_t / peer_t:6.1f}x   ratio memory {subj_m / max(peer_m, 1):6.1f}x")


if __name__ == "__main__":
    main()
