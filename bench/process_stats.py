"""Run a command as a child process and report its wall time and peak RSS (``wait4``).

Shared by the benches; they report numbers and ratios, never assert them.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_rss_mb: float
    returncode: int
    stdout: bytes


def measure(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> Measured:
    """Run ``argv`` to completion; its own peak RSS (not its parent's) and wall time."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, cwd=cwd or REPO, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Measured(time.monotonic() - started, usage.ru_maxrss / 1024, proc.returncode, out)
