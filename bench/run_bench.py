"""aw-harness against Pi, side by side on one scripted model server: one command, ratios aw / Pi.

    bench/install-pi.sh                           # once: Pi, pinned, into bench/pi (npm ci)
    .venv/bin/python -m bench.run_bench [--runs 5] [--wire anthropic,openai] [--image TAG] [--write]

Per wire format, each scenario runs ``--runs`` times per harness, the two interleaved so machine
noise falls on both; figures are medians:

- ``start``: a one-request session. Start to first request, and wall time.
- ``turns``: 200 tool turns (``echo ok``) then a final answer. Wall time, per-turn overhead
  ((exit - first request) / 200, within the same run), peak RSS.
- ``long``: 400 tool turns, the same: how the turns' time grows with the history against how the
  request bodies grow (each request carries the whole history: their sum grows with the square).
- ``big``: 20 tool turns, each printing about 1.3 MB (a different ``seq`` each turn). Bytes sent to
  the model over the session, peak RSS, whether the full output is on disk where the model is told.
- Anthropic wire: share of requests with ``cache_control`` and of requests whose prefix repeats the
  previous request unchanged (over all requests of ``turns`` and ``big``).
- ``--image TAG``: ``docker run`` of the action image to its first request (Anthropic wire).
- the clouds' SDKs: whether an anthropic run imports boto3, google-auth or azure-identity
  (``bench/cloud_imports.py``: one start under ``python -X importtime``).
- the SDK's own import (a process that imports ``anthropic``/``openai``, from spawn to the moment it
  says it is done), the reference of the start-up target, timed once in each round of the starts:
  the start minus it as the two medians' difference and as the median of each round's own
  difference (the machine's drift between rounds cancels); and the floor of any Python harness on
  that SDK: a script that imports it, makes a client and sends one message (spawn to request).

The stall check: the server times each reply (``tests/servers/wire.ReplyTiming``), from its last
write to the moment its kernel has sent the last byte. A reply held back (Nagle's algorithm
waiting for the client's delayed ACK: ~40 ms a reply, on one client and not the other) would
time the server, not the harness; a run where 10 % of the replies were held over
``measure.STALL_LIMIT_S`` fails the bench, which then writes nothing.

``--write`` puts the report, with the machine's description, into bench/RESULTS.md, and keeps what
follows its ``BY_HAND`` marker (what the numbers say, written by a person; other benches' sections).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench import cloud_imports, report
from bench.measure import RunRecord, run_once, stalls
from bench.model_server import BenchServer, Script
from bench.subjects import BENCH, PI_BIN, Launch, aw_harness, image, pi, sdk_floor

TURNS = 200
LONG_TURNS = 400
BIG_TURNS = 20
BIG_LINES = 190_000  # seq of 7-byte lines: 1.33 MB per turn

SCRIPTS = {
    "start": Script(0),
    "turns": Script(TURNS),
    "long": Script(LONG_TURNS),
    "big": Script(BIG_TURNS, command=lambda turn: f"seq {100_000 + turn} {100_000 + turn + BIG_LINES}"),
}
Subject = Callable[[Path, str, str], Launch]


BY_HAND = "<!-- written by hand: bench/run_bench.py --write keeps what follows -->"


def keep_written_by_hand(results: str) -> str:
    """What follows ``BY_HAND`` in the old RESULTS.md (what the numbers say, sections of other
    benches), marker included, to append to the new report; nothing when there is no marker."""
    at = results.find(BY_HAND)
    return "" if at < 0 else "\n" + results[at:]


def sdk_import_s(wire: str, runs: int) -> list[float]:
    """Spawn of a process that imports the SDK to the moment it says so (its exit not counted)."""
    module = "anthropic" if wire == "anthropic" else "openai"
    code = f"import sys, {module}; sys.stdout.write('x'); sys.stdout.flush()"
    times = []
    for _ in range(runs):
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
        assert proc.stdout is not None and proc.stdout.read(1) == b"x"
        times.append(time.monotonic() - started)
        proc.wait()
    return times


def bench_wire(
    wire: str, runs: int, tag: str | None, root: Path, imports: list[float], scenarios: list[str]
) -> dict[str, dict[str, list[RunRecord]]]:
    """Every scenario ``runs`` times, the harnesses interleaved; the SDK import probe runs inside the
    ``start`` rounds (appended to ``imports``), so it sees the same machine load as the starts."""
    subjects: dict[str, Subject] = {"aw": aw_harness, "pi": pi, "sdk": sdk_floor}
    if tag and wire == "anthropic":
        subjects["image"] = lambda folder, w, url: image(folder, w, url, tag)
    records: dict[str, dict[str, list[RunRecord]]] = {name: {s: [] for s in SCRIPTS} for name in subjects}
    server = BenchServer(wire).start()
    try:
        for scenario in scenarios:
            script = SCRIPTS[scenario]
            for i in range(runs):
                for name, subject in subjects.items():
                    if name in ("image", "sdk") and scenario != "start":
                        continue
                    folder = root / wire / scenario / f"{name}-{i}"
                    launch = subject(folder, wire, server.base_url)
                    rss = scenario != "start"
                    record = run_once(server, script, launch, folder / "log.txt", rss=rss)
                    if record.exit_code != 0:
                        tail = (folder / "log.txt").read_text()[-2000:]
                        raise SystemExit(f"{name} {wire}/{scenario} run {i} exited {record.exit_code}:\n{tail}")
                    records[name][scenario].append(record)
                    print(f"{wire:9} {scenario:5} {name:5} run {i}: {record.wall_s:6.2f} s", file=sys.stderr)
                if scenario == "start":
                    imports += sdk_import_s(wire, 1)
    finally:
        server.stop()
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="aw-harness vs Pi, side by side")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--wire", default="anthropic,openai")
    parser.add_argument("--image", help="also time `docker run` of this aw-harness image to its first request")
    parser.add_argument("--write", action="store_true", help="write bench/RESULTS.md")
    parser.add_argument("--scenarios", default=",".join(SCRIPTS), help="a subset, for a quick look (not with --write)")
    args = parser.parse_args(argv)
    if not PI_BIN.exists():
        print("Pi is not installed: run bench/install-pi.sh first", file=sys.stderr)
        return 2
    wires = [w.strip() for w in args.wire.split(",") if w.strip()]
    scenarios = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    if args.write and scenarios != list(SCRIPTS):
        parser.error("--write needs every scenario")
    load_before = report.load_average()
    results = {}
    with tempfile.TemporaryDirectory(prefix="aw-bench-") as tmp:
        for wire in wires:
            imports: list[float] = []
            results[wire] = (bench_wire(wire, args.runs, args.image, Path(tmp), imports, scenarios), imports)
        stalled = [f"{wire}/{scenario} {line}" for wire, (records, _) in results.items()
                   for scenario in scenarios
                   for line in stalls({name: runs[scenario] for name, runs in records.items()})]  # fmt: skip
        if stalled:
            print("stall check failed: the server held replies back, so the numbers time it:", file=sys.stderr)
            print("\n".join(stalled), file=sys.stderr)
            return 1
        if scenarios != list(SCRIPTS):
            print(report.quick(results, scenarios))
            return 0
        clouds = cloud_imports.probe(Path(tmp) / "cloud-imports") if "anthropic" in wires else None
        # inside: the saved tool outputs the report checks are in these folders
        text = report.render(results, args.runs, args.image, load_before, report.load_average(), clouds)
    print(text)
    if args.write:
        results_md = BENCH / "RESULTS.md"
        kept = keep_written_by_hand(results_md.read_text() if results_md.exists() else "")
        results_md.write_text(text + kept)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
