"""The fixed knowledge behind the restricted bash modes: which programs run other programs or
print the environment, which paths are out of reach, and the read-only preset. Which options
turn a tool into an executor or a writer is in ``program_checks`` and its option tables.

These rules hold in every restricted mode, whatever the allow-list says: allowing ``find`` means
finding files, not ``find -exec``; allowing ``gh`` means its commands, not ``gh api -X DELETE``.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence

WRAPPERS = frozenset(
    {
        # shells and shell builtins that run their arguments as code
        "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "toybox",
        "eval", "exec", "source", ".", "command", "builtin", "trap", "enable", "coproc",
        # programs whose job is to run another program
        "env", "xargs", "sudo", "doas", "su", "runuser", "nice", "ionice", "nohup", "timeout",
        "time", "stdbuf", "setsid", "chroot", "unshare", "nsenter", "strace", "ltrace", "watch",
        "parallel", "script", "flock", "taskset", "chrt", "prlimit", "setpriv", "firejail",
        "fakeroot", "systemd-run", "expect", "unbuffer", "catchsegv", "valgrind",
        # editors that run commands from their arguments
        "vi", "vim", "nvim", "view", "ex", "ed", "emacs",
        # pagers and manual readers: `!command`, LESSOPEN, MANPAGER
        "less", "more", "most", "pg", "pager", "man", "info",
    }
)  # fmt: skip
"""Never allowed as the executable of a restricted command, even when allow-listed: each would
run a command the policy never parsed."""

ENVIRONMENT_PRINTERS = frozenset({"printenv", "set", "declare", "typeset", "export", "compgen"})
"""Never allowed in restricted modes: they print the environment, and with it the run's tokens."""


def _path_candidates(arg: str) -> set[str]:
    candidates = {arg, arg.partition("=")[2]}
    if arg.startswith("-") and not arg.startswith("--"):
        candidates.add(arg[2:])
    return {c for c in candidates if c}


def proc_path_reason(args: Sequence[str], cwd: str | None = None) -> str | None:
    """Reject arguments that name ``/proc`` or the filesystem root (a recursive search from there
    reaches ``/proc``, and a process's environment there holds the run's tokens), or a file called
    ``environ``. Best effort: each argument is checked whole, after ``=`` and after a short option
    letter, and resolved (symlinks included, e.g. ``/dev/fd/..``) against ``cwd``."""
    base = cwd or os.getcwd()
    for arg in args:
        for value in _path_candidates(arg):
            if posixpath.basename(value.rstrip("/")) == "environ":
                return f"{arg!r} names a process environment file"
            if "/" not in value and value != "..":
                continue
            resolved = os.path.realpath(os.path.join(base, value))
            if resolved == "/":
                return f"{arg!r} is the filesystem root, which reaches /proc"
            if resolved == "/proc" or resolved.startswith("/proc/"):
                return f"{arg!r} reaches into /proc, which exposes process environments"
    return None


READ_ONLY_PRESET: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = (
    ("cat", ((),)),
    ("find", ((),)),
    ("grep", ((),)),
    ("head", ((),)),
    ("ls", ((),)),
    ("pwd", ((),)),
    ("rg", ((),)),
    ("stat", ((),)),
    ("tail", ((),)),
    ("wc", ((),)),
    ("git", (("diff",), ("grep",), ("log",), ("ls-files",), ("rev-parse",), ("show",), ("status",))),
)
"""The ``read-only`` mode: pi-workflows v1.0.1's inspection preset (grep, head, ls, pwd, rg,
stat, tail, wc and seven read-only git subcommands) plus ``cat`` and ``find``. Every one of them
but ``pwd`` has its options read from a table (``program_checks.PROGRAMS``), so ``rg --pre``,
``find -exec``, ``git grep -O``, ``git diff --ext-diff`` are refused however they are spelled."""
