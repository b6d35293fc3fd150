"""Streaming stays linear: a 100 MB streamed answer against a 10 MB one, through the real CLI.

A local server speaks the Anthropic Messages wire format and streams one text answer of SIZE MB
as deltas of DELTA KB (two shapes: many small deltas, and three huge ones); the real
``aw-harness`` CLI runs against it as a subprocess. Peer in the same command: the bare
``anthropic`` SDK iterating the same stream's raw events (no harness, no accumulation), so the
harness's own cost shows as a ratio too. Issue 10's target: the 100 MB run takes at most about
10x the 10 MB one. Reported, never asserted.

    .venv/bin/python bench/bench_streaming.py [SMALL_MB] [LARGE_MB]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.process_stats import REPO, Measured, measure
from tests.servers import anthropic as wire
from tests.servers.wire import Reply, WireServer

PEER = """
import sys, anthropic
client = anthropic.Anthropic(api_key="k", base_url=sys.argv[1], max_retries=0)
n = 0
messages = [{"role": "user", "content": "go"}]
for event in client.messages.create(model="claude-sonnet-4-6", max_tokens=10, messages=messages, stream=True):
    if event.type == "content_block_delta" and event.delta.type == "text_delta":
        n += len(event.delta.text)
print(n)
"""


def answer(megabytes: int, pieces: int) -> Reply:
    size = megabytes * 1024 * 1024
    text = ("lorem ipsum " * (size // 12 + 1))[:size]
    events = wire.stream_events(text="x")
    start = next(i for i, e in enumerate(events) if "content_block_start" in e)
    step = max(1, size // pieces)
    deltas = [
        wire._event("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": text[i : i + step]}})
        for i in range(0, size, step)
    ]
    return Reply.sse(events[: start + 1] + deltas + events[start + 2 :])


def run_cli(root: Path, url: str) -> Measured:
    (root / "ws").mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps({"engine": {"id": "aw", "model": "claude-sonnet-4.6"}}))
    (root / "prompt.txt").write_text("go")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "ANTHROPIC_API_KEY": "k",
        "ANTHROPIC_BASE_URL": url,
        "AW_OUTPUT_DIR": str(root / "out"),
        "GITHUB_WORKSPACE": str(root / "ws"),
    }
    files = ["--config", str(root / "config.json"), "--prompt", str(root / "prompt.txt")]
    argv = [sys.executable, "-m", "aw_action", *files]
    return measure(argv, env, REPO)


def one(megabytes: int, pieces: int, root: Path) -> tuple[Measured, Measured]:
    reply = answer(megabytes, pieces)
    with WireServer() as server:
        server.script(reply, reply)
        harness = run_cli(root / f"h{megabytes}-{pieces}", server.url)
        peer = measure([sys.executable, "-c", PEER, server.url])
    assert harness.returncode == 0 and peer.returncode == 0, (harness, peer)
    return harness, peer


def main() -> None:
    small, large = (int(a) for a in (sys.argv[1:3] if len(sys.argv) > 2 else ("10", "100")))
    print(f"{'shape':<22}{'MB':>5}{'harness s':>11}{'peer s':>9}{'harness/peer':>14}{'harness RSS MB':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        for label, per_mb in (("5 KB deltas", 200), ("3 huge deltas", 0)):
            times = {}
            for mb in (small, large):
                pieces = per_mb * mb if per_mb else 3
                harness, peer = one(mb, pieces, Path(tmp))
                times[mb] = harness.seconds
                ratio = harness.seconds / peer.seconds
                row = f"{label:<22}{mb:>5}{harness.seconds:>11.2f}{peer.seconds:>9.2f}{ratio:>14.2f}"
                print(f"{row}{harness.peak_rss_mb:>16.0f}")
            print(f"  {label}: {large} MB / {small} MB time ratio = {times[large] / times[small]:.2f} (target <= ~10)")


if __name__ == "__main__":
    main()
