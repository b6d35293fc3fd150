"""One bench run (start a harness, wait for it, read what the server saw) and the metrics taken from
the recorded requests."""

from __future__ import annotations

import itertools
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.model_server import BenchServer, Script, Seen
from bench.subjects import Launch
from tests.servers.wire import ReplyTiming


@dataclass
class RunRecord:
    exit_code: int
    wall_s: float
    first_request_s: float | None
    peak_rss_kb: int
    requests: list[Seen]
    replies: list[ReplyTiming]
    cpu_s: float = 0.0
    """CPU seconds (user + system) of the run's whole process tree (see ``run_once``)."""
    load: float = 0.0
    """The machine's 1-minute load average when the run ended."""


LAUNCHER = Path(__file__).with_name("rss_launcher.py")


def run_once(
    server: BenchServer, script: Script, launch: Launch, log: Path, *, rss: bool = False, timeout_s: float = 600
) -> RunRecord:
    """Start ``launch`` with the server set to ``script``; wall time is from spawn to exit. With
    ``rss``, the run goes through ``rss_launcher.py`` (a fresh ~10 MB process, see there): the
    peak RSS is the harness's and the CPU is its whole tree's, reaped as a subreaper; without,
    ``peak_rss_kb`` is 0, nothing stands between the bench and the harness's start, and the CPU
    is what ``wait4`` reports for the harness and the children it reaped."""
    server.reset(script)
    rss_file = log.with_suffix(".rss")
    argv = [sys.executable, str(LAUNCHER), str(rss_file), *launch.argv] if rss else launch.argv
    with log.open("w") as sink:
        started = time.monotonic()
        proc = subprocess.Popen(argv, env=launch.env, cwd=launch.cwd, stdout=sink, stderr=subprocess.STDOUT)
        killer = threading.Timer(timeout_s, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    seen = list(server.seen)
    first = seen[0].at - started if seen else None
    peak, cpu = 0, usage.ru_utime + usage.ru_stime
    if rss and rss_file.is_file():
        rss_text, cpu_text = rss_file.read_text().split()
        peak, cpu = int(rss_text), float(cpu_text)
    load = os.getloadavg()[0]
    return RunRecord(proc.returncode, wall, first, peak, seen, server.take_replies(), cpu, load)


STALL_LIMIT_S = 0.010
"""A reply whose last bytes the server's kernel held back longer than this was stalled (Nagle's
algorithm waiting for a delayed ACK holds them ~40 ms); loopback with ``TCP_NODELAY`` holds none."""


def held_p90_s(replies: list[ReplyTiming]) -> float:
    """The 90th percentile of how long the server's kernel held a reply's last bytes back."""
    held = sorted(r.held_s for r in replies)
    return held[max(0, int(len(held) * 0.9) - 1)] if held else 0.0


def stalls(runs: dict[str, list[RunRecord]]) -> list[str]:
    """One line per run (harness: its runs) whose replies the server held back (the stall check)."""
    return [
        f"{name} run {i}: 90% of replies held up to {held_p90_s(run.replies) * 1000:.1f} ms in the server's send queue"
        for name, records in runs.items()
        for i, run in enumerate(records)
        if held_p90_s(run.replies) > STALL_LIMIT_S
    ]


def server_gap_s(replies: list[ReplyTiming]) -> float:
    """Median time, as the server saw it, from a reply's last byte on the wire to the next request
    read: the client's own time per turn, the server's time excluded."""
    gaps = [b.received_at - a.on_wire_at for a, b in itertools.pairwise(replies)]
    return statistics.median(gaps) if gaps else float("nan")


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def bytes_sent(requests: list[Seen]) -> int:
    return sum(len(r.body) for r in requests)


def cache_marked_share(requests: list[Seen]) -> float:
    """Share of requests whose body carries at least one ``cache_control`` mark."""
    return sum(1 for r in requests if b'"cache_control"' in r.body) / len(requests) if requests else float("nan")


def _strip_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_strip_marks(v) for v in value]
    return value


def stable_prefix_share(requests: list[Seen]) -> float:
    """Share of requests (after the first) that repeat the previous request's system prompt, tools
    and messages unchanged, byte for byte once serialised, with cache marks set aside (they move
    by design and are not part of the cached content)."""
    stable = 0
    for prev, cur in itertools.pairwise(requests):
        a, b = _strip_marks(prev.data), _strip_marks(cur.data)
        head = [json.dumps(a.get(k), sort_keys=True) for k in ("system", "tools")]
        same_head = head == [json.dumps(b.get(k), sort_keys=True) for k in ("system", "tools")]
        old, new = a.get("messages", []), b.get("messages", [])
        if same_head and json.dumps(new[: len(old)], sort_keys=True) == json.dumps(old, sort_keys=True):
            stable += 1
    return stable / (len(requests) - 1) if len(requests) > 1 else float("nan")


_FULL_OUTPUT = re.compile(r"Full output: (\S+?)\]|full output[^:]*: (\S+?)[\])\s]", re.IGNORECASE)


def full_output_on_disk(requests: list[Seen], min_bytes: int) -> bool | None:
    """Whether the last tool result names a file that holds the whole output (None: not named)."""
    if not requests:
        return None
    text = requests[-1].body.decode("utf-8", "replace").replace("\\n", "\n")
    paths = [a or b for a, b in _FULL_OUTPUT.findall(text)]
    if not paths:
        return None
    path = Path(paths[-1])
    return path.is_file() and path.stat().st_size >= min_bytes
