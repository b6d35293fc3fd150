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


@dataclass
class RunRecord:
    exit_code: int
    wall_s: float
    first_request_s: float | None
    peak_rss_kb: int
    requests: list[Seen]


LAUNCHER = Path(__file__).with_name("rss_launcher.py")


def run_once(
    server: BenchServer, script: Script, launch: Launch, log: Path, *, rss: bool = False, timeout_s: float = 600
) -> RunRecord:
    """Start ``launch`` with the server set to ``script``; wall time is from spawn to exit. With
    ``rss``, the run goes through ``rss_launcher.py`` (a fresh ~10 MB process, see there) and the
    peak RSS is the harness's; without, ``peak_rss_kb`` is 0 and nothing stands between the
    bench and the harness's start."""
    server.reset(script)
    rss_file = log.with_suffix(".rss")
    argv = [sys.executable, str(LAUNCHER), str(rss_file), *launch.argv] if rss else launch.argv
    with log.open("w") as sink:
        started = time.monotonic()
        proc = subprocess.Popen(argv, env=launch.env, cwd=launch.cwd, stdout=sink, stderr=subprocess.STDOUT)
        killer = threading.Timer(timeout_s, proc.kill)
        killer.start()
        try:
            _, status, _usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
        wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    seen = list(server.seen)
    first = seen[0].at - started if seen else None
    peak = int(rss_file.read_text()) if rss and rss_file.is_file() else 0
    return RunRecord(proc.returncode, wall, first, peak, seen)


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
