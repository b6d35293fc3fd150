"""``python bench/rss_launcher.py RSS_FILE ARGV...``: run ARGV and write its peak RSS (KiB) to RSS_FILE.

Why a separate small process: Linux carries a parent's resident-set high-water mark into a forked
child (the child's memory starts as a copy) and keeps it across exec, so ``wait4`` in the bench,
which holds every recorded request in memory, would report at least the bench's own size. This
launcher starts fresh (about 10 MB), so what it reports for its child is the harness's own peak
(the largest process of its tree). Exit code: the child's.
"""

import os
import subprocess
import sys


def main() -> int:
    rss_file, argv = sys.argv[1], sys.argv[2:]
    proc = subprocess.Popen(argv)
    _, status, usage = os.wait4(proc.pid, 0)
    with open(rss_file, "w") as out:
        out.write(str(usage.ru_maxrss))
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    raise SystemExit(main())
