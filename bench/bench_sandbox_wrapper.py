"""What the exec wrapper costs per bash call (issue 19): ``bash -c true`` started through
``security/confinement/spawn.py`` with no wrapper (the peer), behind the wrapper with ``no_new_privs`` only
(``full``), and behind it with Landlock (``workspace-write`` without TCP, ``read-only``); the file
helper's open with and without a confinement. Wall time per call, median and 90th percentile over
N calls, each measured in the same command; and each confined case as the bash tool starts it
(``spawn.start``: through the spawn server, ``security/confinement/spawn_server.py``). Reported, never asserted.

    .venv/bin/python bench/bench_sandbox_wrapper.py [N]
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aw_action.security.confinement import spawn
from aw_action.security.confinement.fileio import open_as
from aw_action.security.confinement.sandbox import Confinement, SandboxPlan, SandboxSettings, probe


def timed(n: int, call: Callable[[], object]) -> tuple[float, float]:
    samples = []
    for _ in range(n):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.9) - 1]


def served(n: int, launch: spawn.Launch) -> tuple[float, float]:
    """``bash -c true`` as the bash tool starts it (``spawn.start``, output to a descriptor): a
    confined launch goes through its spawn server."""

    async def calls() -> list[float]:
        samples = []
        for _ in range(n):
            started = time.perf_counter()
            read_fd, write_fd = os.pipe()
            proc = await spawn.start(["bash", "-c", "true"], launch, stdout=write_fd, stderr=spawn.STDOUT)
            os.close(write_fd)
            await proc.wait()
            os.close(read_fd)
            samples.append((time.perf_counter() - started) * 1000)
        return sorted(samples)

    samples = asyncio.run(calls())
    return statistics.median(samples), samples[int(len(samples) * 0.9) - 1]


def main(n: int) -> None:
    kernel = probe(os.environ)
    work = Path(tempfile.mkdtemp(prefix="aw-bench-"))
    (work / "f.txt").write_text("x\n")
    plan = lambda mode: SandboxPlan(SandboxSettings(mode=mode), kernel, str(work), str(work))  # noqa: E731
    cases: dict[str, Confinement | None] = {
        "no wrapper (peer)": None,
        "full (no_new_privs only)": plan("full").confinement(),
        "workspace-write, no TCP": plan("workspace-write").confinement(),
        "read-only": plan("read-only").confinement(),
    }
    env = {"PATH": "/usr/bin:/bin"}
    print(f"kernel: {kernel.describe()}; python for the wrapper: {spawn.helper_python()}; {n} calls each")
    peer = 0.0
    for name, confinement in cases.items():
        launch = spawn.Launch(env=env, cwd=work, confinement=confinement)
        median, p90 = timed(n, lambda launch=launch: spawn.run(["bash", "-c", "true"], launch, timeout_s=30))
        peer = peer or median
        print(f"bash -c true, {name:34s} median {median:6.1f} ms  p90 {p90:6.1f} ms  (+{median - peer:5.1f} ms)")
        if confinement is not None:
            median, p90 = served(n, launch)
            label = f"{name}, served"
            print(f"bash -c true, {label:34s} median {median:6.1f} ms  p90 {p90:6.1f} ms  (+{median - peer:5.1f} ms)")
    for name, confinement in (("file helper, no confinement", None), ("file helper, read-only", cases["read-only"])):
        median, p90 = timed(
            n, lambda c=confinement: os.close(open_as(work / "f.txt", os.O_RDONLY, 0, None, confinement=c))
        )
        print(f"{name:39s} median {median:6.1f} ms  p90 {p90:6.1f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)
