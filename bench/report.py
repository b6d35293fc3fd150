"""The bench's report: one Markdown table per wire format with aw-harness, Pi, the ratio and the
target, plus the machine it ran on."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

from bench.cloud_imports import CloudImports
from bench.cloud_imports import table as cloud_table
from bench.measure import (
    STALL_LIMIT_S,
    RunRecord,
    bytes_sent,
    cache_marked_share,
    full_output_on_disk,
    held_p90_s,
    median,
    server_gap_s,
    stable_prefix_share,
)
from bench.subjects import pi_version

Records = dict[str, dict[str, list[RunRecord]]]
START_BUDGET_S = 0.100
"""aw-harness's start to first request may exceed the SDK's own import time by this much (issue 36)."""
TURN_TARGET = 0.7
"""aw-harness's per-turn overhead, at most this share of Pi's (issue 25)."""
START_TARGET = 1.0
"""aw-harness's start to first request, at most Pi's."""


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def machine() -> list[str]:
    cpu = next(
        (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
         if line.startswith("model name")),
        platform.processor() or "unknown",
    )  # fmt: skip
    mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if "MemTotal" in line)
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return [
        f"- date: {datetime.datetime.now(datetime.UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {platform.system()} {platform.release()} {platform.machine()}, {cpu}, "
        f"{os.cpu_count()} cores, {mem_kb / 1024 / 1024:.0f} GB RAM (shared with other workloads)",
        f"- Python {platform.python_version()} ({sys.executable}), Node {node}, Pi {pi_version()}",
    ]


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "n/a"


def _row(name: str, aw: float, pi: float, unit: str, target: float | None, scale: float = 1.0, load: str = "") -> str:
    fmt = {"s": "{:.3f} s", "ms": "{:.1f} ms", "MB": "{:.1f} MB"}[unit]
    met = "" if target is None else ("yes" if aw <= pi * target else "**no**")
    goal = "" if target is None else f"≤ {target:g}x"
    ratio = _ratio(aw, pi)
    return f"| {name} | {fmt.format(aw * scale)} | {fmt.format(pi * scale)} | {ratio} | {goal} | {met} | {load} |"


def loads(records: Records, scenario: str) -> str:
    """The 1-minute load average at the end of the scenario's runs: lowest to highest."""
    values = [r.load for side in records.values() for r in side.get(scenario, [])]
    return f"{min(values):.1f}-{max(values):.1f}" if values else ""


def wire_table(wire: str, records: Records, imports: list[float], runs: int) -> list[str]:
    aw, pi = records["aw"], records["pi"]

    def med(side: dict[str, list[RunRecord]], scenario: str, field: str) -> float:
        values = [getattr(r, field) for r in side[scenario]]
        return median([float(v) for v in values if v is not None])

    def per_run(side: dict[str, list[RunRecord]], scenario: str, fn) -> float:  # type: ignore[no-untyped-def]
        return median([float(fn(r.requests)) for r in side[scenario]])

    held_aw, held_pi = (max(held_p90_s(r.replies) for s in side.values() for r in s) for side in (aw, pi))

    lines = [
        f"### {wire} wire format (medians of {runs} runs)",
        "",
        "| metric | aw-harness | Pi | aw / Pi | target | met | load |",
        "| --- | --: | --: | --: | --: | :-: | --: |",
        _row("start to first request", med(aw, "start", "first_request_s"), med(pi, "start", "first_request_s"),
             "s", START_TARGET, load=loads(records, "start")),
        _row("wall time, 1 request", med(aw, "start", "wall_s"), med(pi, "start", "wall_s"), "s", None,
             load=loads(records, "start")),
        _row("wall time, 200 tool turns", med(aw, "turns", "wall_s"), med(pi, "turns", "wall_s"), "s", None,
             load=loads(records, "turns")),
        _row("per-turn overhead (200 turns)", overhead(aw), overhead(pi), "ms", TURN_TARGET, 1000,
             load=loads(records, "turns")),
        _row("CPU per turn, whole process tree (second method)", cpu_per_turn(aw), cpu_per_turn(pi), "ms",
             TURN_TARGET, 1000, load=loads(records, "turns")),
        _row("server: reply on the wire to next request, median", gap(aw), gap(pi), "ms", None, 1000,
             load=loads(records, "turns")),
        f"| stall check: replies held in the server's send queue, worst run's 90th pct | {held_aw * 1000:.1f} ms "
        f"| {held_pi * 1000:.1f} ms | | ≤ {STALL_LIMIT_S * 1000:g} ms "
        f"| {'yes' if max(held_aw, held_pi) <= STALL_LIMIT_S else '**no**'} | |",
        _row("peak RSS, 200 tool turns", med(aw, "turns", "peak_rss_kb"), med(pi, "turns", "peak_rss_kb"),
             "MB", 0.7, 1 / 1024, load=loads(records, "turns")),
        _row("peak RSS, 20 turns of 1.3 MB", med(aw, "big", "peak_rss_kb"), med(pi, "big", "peak_rss_kb"),
             "MB", 0.7, 1 / 1024, load=loads(records, "big")),
        _row("bytes sent, 20 turns of 1.3 MB", per_run(aw, "big", bytes_sent), per_run(pi, "big", bytes_sent),
             "MB", 0.5, 1 / 1e6, load=loads(records, "big")),
    ]  # fmt: skip
    lines.extend(growth_rows(aw, pi, loads(records, "long")))
    disk = [full_output_on_disk(r.requests, 1_000_000) for r in aw["big"]]
    disk_pi = [full_output_on_disk(r.requests, 1_000_000) for r in pi["big"]]
    lines.append(f"| full 1.3 MB output on disk, path given to the model | {_yes(disk)} | {_yes(disk_pi)} | | | | |")
    conns = [median([float(len({t.connection for t in r.replies})) for r in side["turns"]]) for side in (aw, pi)]
    lines.append(f"| connections the 201 requests of a 200-turn run used | {conns[0]:.0f} | {conns[1]:.0f} | | | | |")
    if wire == "anthropic":
        reqs_aw = [r.requests for s in ("turns", "big") for r in aw[s]]
        reqs_pi = [r.requests for s in ("turns", "big") for r in pi[s]]
        checks = (("requests with cache_control", cache_marked_share), ("prefix byte-stable", stable_prefix_share))
        for label, fn in checks:
            a, p = median([fn(x) for x in reqs_aw]), median([fn(x) for x in reqs_pi])
            met = ("yes" if a == 1.0 else "**no**") if "cache" in label else ""
            lines.append(f"| {label} | {a:.0%} | {p:.0%} | | {'100 %' if met else ''} | {met} | |")
    start = med(aw, "start", "first_request_s")
    sdk = median(imports)
    met = "yes" if start - sdk <= START_BUDGET_S else "**no**"
    load = loads(records, "start")
    module = "anthropic" if wire == "anthropic" else "openai"
    budget = f"≤ {START_BUDGET_S * 1000:.0f} ms"
    lines.append(f'| `python -c "import {module}"` alone (spawn to done) | {sdk:.3f} s | | | | | {load} |')
    lines.append(
        f"| start to first request minus SDK import | {(start - sdk) * 1000:.0f} ms | | | {budget} | {met} | {load} |"
    )
    paired = median([(r.first_request_s or 0.0) - s for r, s in zip(aw["start"], imports, strict=False)])
    lines.append(
        f"| the same, the median of each round's difference (its start minus its own import) "
        f"| {paired * 1000:.0f} ms | | | {budget} | {'yes' if paired <= START_BUDGET_S else '**no**'} | {load} |"
    )
    floor = med(records["sdk"], "start", "first_request_s")
    lines.append(
        f"| bare SDK script (import, client, one request): start to first request | {floor:.3f} s | | | | | {load} |"
    )
    lines.append(
        f"| start to first request minus the bare SDK script's | {(start - floor) * 1000:.0f} ms | | | | | {load} |"
    )
    if "image" in records:
        img = med(records["image"], "start", "first_request_s")
        lines.append(f"| image: `docker run` to first request | {img:.3f} s | | | | | {load} |")
    return [*lines, ""]


def overhead(side: dict[str, list[RunRecord]], scenario: str = "turns", turns: int = 200) -> float:
    """Per-turn overhead: (exit - first request) / ``turns``, median over the runs."""
    return median([(r.wall_s - (r.first_request_s or 0.0)) / turns for r in side[scenario]])


def growth_rows(aw: dict[str, list[RunRecord]], pi: dict[str, list[RunRecord]], load: str) -> list[str]:
    """400 turns against 200: the per-turn overhead, and how much the turns' whole time grew
    against how much the request bodies did (target: no faster, issue 36)."""

    def grown(side: dict[str, list[RunRecord]]) -> tuple[float, float]:
        time_ = overhead(side, "long", 400) * 400 / (overhead(side) * 200)
        sent = median([float(bytes_sent(r.requests)) for r in side["long"]])
        return time_, sent / median([float(bytes_sent(r.requests)) for r in side["turns"]])

    (time_aw, bytes_aw), (time_pi, bytes_pi) = grown(aw), grown(pi)
    met = "yes" if time_aw <= bytes_aw else "**no**"
    return [
        _row("per-turn overhead (400 turns)", overhead(aw, "long", 400), overhead(pi, "long", 400), "ms", None, 1000,
             load=load),
        f"| the turns' time, 400 turns / 200 turns | {time_aw:.2f}x | {time_pi:.2f}x | | "
        f"≤ the bytes' | {met} | {load} |",
        f"| request bytes sent, 400 turns / 200 turns | {bytes_aw:.2f}x | {bytes_pi:.2f}x | | | | {load} |",
    ]  # fmt: skip


def cpu_per_turn(side: dict[str, list[RunRecord]]) -> float:
    """CPU of the whole process tree per turn: (median CPU of the 200-turn runs - median CPU of
    the one-request runs) / 200; blind to waits, so less moved by a busy machine than wall time."""
    return (median([r.cpu_s for r in side["turns"]]) - median([r.cpu_s for r in side["start"]])) / 200


def gap(side: dict[str, list[RunRecord]]) -> float:
    """The server's view of a turn (``measure.server_gap_s``), median over the runs."""
    return median([server_gap_s(r.replies) for r in side["turns"]])


def quick(results: dict[str, tuple[Records, list[float]]], scenarios: list[str]) -> str:
    """A few lines for a subset of the scenarios (a quick look while working, never RESULTS.md)."""
    lines = []
    for wire, (records, imports) in results.items():
        aw, pi = records["aw"], records["pi"]
        if "start" in scenarios:
            a, p = (median([r.first_request_s or 0.0 for r in side["start"]]) for side in (aw, pi))
            lines.append(f"{wire}: start to first request aw {a:.3f} s, Pi {p:.3f} s: {_ratio(a, p)}")
            sdk, floor = median(imports), median([r.first_request_s or 0.0 for r in records["sdk"]["start"]])
            lines.append(
                f"{wire}: minus the SDK's import alone ({sdk:.3f} s) {(a - sdk) * 1000:.0f} ms, "
                f"minus the bare SDK script's start ({floor:.3f} s) {(a - floor) * 1000:.0f} ms"
            )
        if "turns" in scenarios:
            a, p = overhead(aw), overhead(pi)
            lines.append(f"{wire}: per turn aw {a * 1000:.1f} ms, Pi {p * 1000:.1f} ms: {_ratio(a, p)}")
            a, p = gap(aw), gap(pi)
            lines.append(f"{wire}: server gap aw {a * 1000:.1f} ms, Pi {p * 1000:.1f} ms: {_ratio(a, p)}")
            a, p = (median([r.cpu_s for r in side["turns"]]) for side in (aw, pi))
            lines.append(f"{wire}: CPU of a 200-turn run aw {a:.2f} s, Pi {p:.2f} s: {_ratio(a, p)}")
            loads_seen = [r.load for side in (aw, pi) for r in side["turns"]]
            lines.append(f"{wire}: load {min(loads_seen):.1f}-{max(loads_seen):.1f}")
        if "turns" in scenarios and "long" in scenarios:
            lines.extend(f"{wire}: {row}" for row in growth_rows(aw, pi, loads(records, "long")))
    return "\n".join(lines)


def _yes(values: list[bool | None]) -> str:
    if all(v is True for v in values):
        return "yes"
    if all(v is None for v in values):
        return "not named"
    return "no" if not any(values) else "partly"


def render(
    results: dict[str, tuple[Records, list[float]]],
    runs: int,
    tag: str | None,
    before: str,
    after: str,
    clouds: CloudImports | None = None,
) -> str:
    lines = [
        "# aw-harness vs Pi",
        "",
        "Produced by `.venv/bin/python -m bench.run_bench --write` (see bench/run_bench.py for what each row",
        "measures). Both harnesses talk to the same scripted model server (tests/servers wire formats) on",
        "loopback; the server reports 10 input tokens per request, so neither compacts.",
        "",
        *machine(),
        f"- load average before / after: {before} / {after}" + (f"; image `{tag}`" if tag else ""),
        "",
    ]
    for wire, (records, imports) in results.items():
        lines += wire_table(wire, records, imports, runs)
    if clouds is not None:
        lines += cloud_table(clouds)
    lines += NOTES
    return "\n".join(lines)


NOTES = [
    "### Reading these numbers",
    "",
    "- The command: `bash bench/install-pi.sh` once, then `.venv/bin/python -m bench.run_bench --runs 7 --write`",
    "  (both wires). The `load` column is the machine's 1-minute load average at the end of each run of",
    "  that scenario (lowest-highest, `os.getloadavg`, what `uptime` shows): on a machine busier than its",
    "  cores every hand-off between processes waits for a core, which weighs on wall times and on the",
    "  start above all. Numbers taken under a load above the core count must be measured again on a",
    "  quiet machine before they are believed.",
    "- CPU per turn (the second method): the CPU time of every process of the run (the harness, its",
    "  spawn server and the bash commands; node and bash for Pi), reaped by a subreaping launcher",
    "  (bench/rss_launcher.py), (median of the 200-turn runs - median of the one-request runs) / 200.",
    "  Blind to waits, it moves less with the load than wall time does.",
    "- Medians of interleaved runs (aw, Pi, then the probes, round by round) on a machine shared with",
    "  other work (the load average is above): the ratios are what count; start-up rows move by tens",
    "  of milliseconds from one bench run to the next, so a start-up margin smaller than that is not a",
    "  reliable pass.",
    "- Pi runs as installed by bench/install-pi.sh, in print mode, writing its session file as it does",
    "  by default; aw-harness writes its records (the output dir) as it does by default.",
    "- Per-turn overhead is (exit - first request) / 200 in one run: the harness's own work per turn,",
    "  the bash tool included (`echo ok`), with a model that answers at once. The server row is the",
    "  client's share alone: from a reply's last byte on the wire to the next request, as the server saw it.",
    "- The stall check: the server sends with `TCP_NODELAY` and times how long its kernel held each",
    "  reply's last bytes back; a run where the 90th percentile exceeds the limit fails the bench",
    "  (Nagle's algorithm against a client's delayed ACK once cost one client ~40 ms a turn).",
    "- Peak RSS is the largest process of the harness's tree, measured through a fresh launcher",
    "  (bench/rss_launcher.py) so the bench's own memory does not leak into it.",
    "- Bytes: every request body of the session summed; each turn's tool prints a different 1.33 MB",
    "  (so the repeated-output rule of the bash tool does not apply: this is head-and-tail truncation",
    "  alone). Pi keeps the last 2000 lines / 50 KB of each output, aw-harness 128 lines from each end",
    "  within 10 KiB.",
    "- Prefix byte-stable: each request repeats the previous one's system prompt, tools and messages",
    "  unchanged (cache marks aside); this is what lets the provider's prompt cache hit.",
    '- The SDK import (`python -c "import anthropic"`, spawn to done) is the reference of the start-up',
    "  budget (within 100 ms of it, issue 36); the bare SDK script (import, client, one message) is the",
    "  least any Python harness on that SDK does before its first request.",
    "- Where the per-turn time goes, and what was done about it: bench/PROFILE.md.",
    "",
]
