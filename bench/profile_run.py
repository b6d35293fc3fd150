"""A CPU profile of one aw-harness run on the bench's scripted server: where a turn's time goes.

    .venv/bin/python -m bench.profile_run [--wire anthropic] [--turns 200] [--top 25] [--out FILE.prof]

The harness runs in a child process as the bench starts it (``bench/subjects.py``), under
``cProfile`` with CPU time as its clock (``time.process_time``: steadier than wall time on a
shared machine, and blind to the time spent waiting for the server). The bash commands' own CPU
is not in it (other processes); ``cpu`` below adds every process of the run (``wait4``).
Printed: the run's CPU and wall time, then the top entries by own time and, for aw-harness's
functions, by cumulative time. bench/PROFILE.md is this output for 200 turns, with notes.
"""

from __future__ import annotations

import argparse
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.model_server import BenchServer, Script
from bench.subjects import REPO, aw_harness

_PROFILED = """
import cProfile, sys, time
out, sys.argv = sys.argv[1], ["aw-harness", *sys.argv[2:]]
from aw_action.security.confinement.safe_path import drop_unsafe_path
drop_unsafe_path()
profiler = cProfile.Profile(time.process_time)
profiler.enable()
try:
    from aw_action.cli import main
    code = main(sys.argv[1:])
finally:
    profiler.disable()
    profiler.dump_stats(out)
raise SystemExit(code)
"""


def profile(wire: str, turns: int, out: Path) -> tuple[float, float]:
    """Run ``turns`` tool turns under the profiler, stats into ``out``; (CPU s, wall s) of the
    whole process tree."""
    server = BenchServer(wire).start()
    try:
        server.reset(Script(turns))
        root = Path(tempfile.mkdtemp(prefix="aw-profile-"))
        launch = aw_harness(root, wire, server.base_url)
        argv = [sys.executable, "-c", _PROFILED, str(out), *launch.argv[3:]]
        started = time.monotonic()
        with (root / "log.txt").open("w") as log:
            proc = subprocess.Popen(argv, env=launch.env, cwd=launch.cwd, stdout=log, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - started
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"the profiled run failed:\n{(root / 'log.txt').read_text()[-2000:]}")
        if len(server.seen) != turns + 1:
            raise SystemExit(f"expected {turns + 1} requests, the server saw {len(server.seen)}")
        return usage.ru_utime + usage.ru_stime, wall
    finally:
        server.stop()


def top(out: Path, count: int, sort: str, restrict: str = "") -> str:
    """The first ``count`` entries by ``sort``, of the functions whose path matches ``restrict``;
    paths shortened to the package (``aw_action/...``, ``anthropic/...``, ``copy.py``)."""
    text = io.StringIO()
    stats = pstats.Stats(str(out), stream=text).sort_stats(sort)
    stats.print_stats(*([restrict] if restrict else []), count)
    lines = text.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip().startswith("ncalls")), 0)
    kept = [_short(line) for line in lines[start:] if line.strip()]
    return "\n".join(kept)


_PREFIXES = (str(REPO) + "/", *sorted({p + "/" for p in sys.path if p and p != str(REPO)}, key=len, reverse=True))


def _short(line: str) -> str:
    for prefix in _PREFIXES:
        line = line.replace(prefix, "")
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="profile one aw-harness run on the bench server")
    parser.add_argument("--wire", default="anthropic")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "aw-profile.prof")
    args = parser.parse_args(argv)
    cpu, wall = profile(args.wire, args.turns, args.out)
    print(f"{args.wire}, {args.turns} tool turns: {cpu:.2f} s CPU (every process), {wall:.2f} s wall, under cProfile")
    print(f"\nBy own CPU time:\n\n{top(args.out, args.top, 'tottime')}")
    print(f"\naw-harness's functions by cumulative CPU time:\n\n{top(args.out, args.top, 'cumulative', 'aw_action')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
