"""``python bench/rss_launcher.py OUT_FILE ARGV...``: run ARGV; write its peak RSS (KiB) and the CPU
seconds of its whole process tree to OUT_FILE (``"<rss> <cpu>"``).

Why a separate small process: Linux carries a parent's resident-set high-water mark into a forked
child (the child's memory starts as a copy) and keeps it across exec, so ``wait4`` in the bench,
which holds every recorded request in memory, would report at least the bench's own size. This
launcher starts fresh (about 10 MB), so what it reports for its child is the harness's own peak
(the largest process of its tree).

The CPU: the launcher is a child subreaper (``PR_SET_CHILD_SUBREAPER``), so a process of the tree
that outlives its parent (aw-harness's spawn server, whose children are the bash commands; any
helper Pi leaves) comes back to it when the harness exits and is reaped here, for up to two
seconds; ``getrusage(RUSAGE_CHILDREN)`` then counts every process of the tree, the commands
included, for both harnesses alike. Exit code: the child's.
"""

import ctypes
import os
import resource
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def _reap_the_rest(limit_s: float = 2.0) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)


def main() -> int:
    out_file, argv = sys.argv[1], sys.argv[2:]
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    proc = subprocess.Popen(argv)
    _, status, usage = os.wait4(proc.pid, 0)
    _reap_the_rest()
    tree = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out_file, "w") as out:
        out.write(f"{usage.ru_maxrss} {tree.ru_utime + tree.ru_stime:.4f}")
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    raise SystemExit(main())
