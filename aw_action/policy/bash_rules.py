"""The fixed knowledge behind the restricted bash modes: which programs run other programs, which
options turn an inspection tool into an executor or a writer, and the read-only preset.

These rules hold in every restricted mode, whatever the allow-list says: allowing ``find`` means
finding files, not ``find -exec``; allowing ``gh`` means its commands, not ``gh api -X DELETE``.
A checker returns a rejection reason or ``None``.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Sequence

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
    }
)  # fmt: skip
"""Never allowed as the executable of a restricted command, even when allow-listed: each would
run a command the policy never parsed."""

ENVIRONMENT_PRINTERS = frozenset({"printenv", "set", "declare", "typeset", "export", "compgen"})
"""Never allowed in restricted modes: they print the environment, and with it the run's tokens."""


def _takes(arg: str, options: Sequence[str]) -> str | None:
    """The option of ``options`` that ``arg`` is (``--opt`` or ``--opt=value``), if any."""
    for option in options:
        if arg == option or (option.startswith("--") and arg.startswith(option + "=")):
            return option
    return None


def _short_or_long(arg: str, shorts: str, longs: Sequence[str]) -> str | None:
    """``arg`` is one of ``longs``, or a short-option cluster containing one of ``shorts``."""
    found = _takes(arg, longs)
    if found:
        return found
    if shorts and arg.startswith("-") and not arg.startswith("--"):
        for ch in arg[1:]:
            if ch in shorts:
                return f"-{ch}"
    return None


def _check_find(args: Sequence[str]) -> str | None:
    bad = {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
    hit = next((a for a in args if a in bad), None)
    return f"find {hit} runs commands or writes files" if hit else None


_GIT_GLOBAL_WITH_VALUE = {"-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix"}
_GIT_RISKY = (
    "--ext-diff", "--textconv", "--output", "--open-files-in-pager", "--upload-pack", "--receive-pack",
    "--exec", "--config-env", "--template", "--config",
)  # fmt: skip
_GIT_RISKY_COMMANDS = {
    "config": "git config can make later git commands run programs (core.pager, core.fsmonitor)",
    "submodule": "git submodule foreach runs commands",
    "bisect": "git bisect run runs commands",
    "filter-branch": "git filter-branch runs commands",
    "filter-repo": "git filter-repo runs code",
    "difftool": "git difftool runs external tools",
    "mergetool": "git mergetool runs external tools",
    "daemon": "git daemon serves the repository",
    "instaweb": "git instaweb starts a web server",
    "credential": "git credential prints stored credentials",
}


def _check_git(args: Sequence[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        if arg == "-c" or arg.startswith("-c") or _takes(arg, ("--config-env", "--exec-path")):
            return f"git {arg} sets configuration that can run programs"
        i += 2 if arg in _GIT_GLOBAL_WITH_VALUE else 1
    if i >= len(args):
        return None
    subcommand, rest = args[i], args[i + 1 :]
    if subcommand in _GIT_RISKY_COMMANDS:
        return _GIT_RISKY_COMMANDS[subcommand]
    for arg in rest:
        found = _takes(arg, _GIT_RISKY)
        if found:
            return f"git {subcommand} {found} runs programs or writes files"
        if subcommand == "grep" and (arg == "-O" or arg.startswith("-O")):
            return "git grep -O opens files in a pager"
        if subcommand == "rebase" and (arg == "-x" or arg.startswith("-x")):
            return "git rebase -x runs commands"
    return None


def _check_gh_like(program: str) -> Callable[[Sequence[str]], str | None]:
    """``gh``/``glab``: ``api`` stays GET-only; extensions and shell aliases run code."""

    def check(args: Sequence[str]) -> str | None:
        if not args:
            return None
        if args[0] in ("extension", "extensions", "ext", "alias"):
            return f"{program} {args[0]} can install or run arbitrary programs"
        if args[0] == "auth" and (args[1:2] != ["status"] or any(a in ("-t", "--show-token") for a in args)):
            return f"{program} auth can print or change credentials"
        if args[0] == "api":
            for arg in args[1:]:
                found = _short_or_long(
                    arg, "XfFH", ("--method", "--field", "--raw-field", "--input", "--header", "--form")
                )
                if found:
                    return f"{program} api {found}: API calls are read-only (GET) in restricted modes"
        return None

    return check


def _check_jq(args: Sequence[str]) -> str | None:
    for arg in args:
        if "$ENV" in arg or re.search(r"(?<![A-Za-z0-9_$])env(?![A-Za-z0-9_])", arg):
            return "jq env / $ENV reads the environment (and the run's tokens)"
    return None


def _check_options(program: str, shorts: str, longs: Sequence[str], why: str) -> Callable[[Sequence[str]], str | None]:
    def check(args: Sequence[str]) -> str | None:
        hit = next((found for a in args if (found := _short_or_long(a, shorts, longs))), None)
        return f"{program} {hit} {why}" if hit else None

    return check


_TAR_RUNNERS = (
    "--to-command", "--checkpoint-action", "--use-compress-program", "--rsh-command", "--info-script",
    "--new-volume-script",
)  # fmt: skip

OPTION_CHECKS: dict[str, Callable[[Sequence[str]], str | None]] = {
    "find": _check_find,
    "git": _check_git,
    "gh": _check_gh_like("gh"),
    "glab": _check_gh_like("glab"),
    "rg": _check_options("rg", "", ("--pre", "--pre-glob", "--hostname-bin"), "runs a helper program"),
    "tar": _check_options("tar", "IF", _TAR_RUNNERS, "runs programs"),
    "sort": _check_options("sort", "", ("--compress-program",), "runs programs"),
    "rsync": _check_options("rsync", "e", ("--rsh", "--rsync-path"), "runs programs"),
    "ssh": _check_options("ssh", "o", (), "can run local programs (ProxyCommand)"),
    "scp": _check_options("scp", "oS", (), "runs programs"),
    "jq": _check_jq,
}
"""Per-executable checks of options that make a program run others or write files."""


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
stat, tail, wc and seven read-only git subcommands) plus ``cat`` and ``find``; the option checks
above still apply (no ``rg --pre``, ``find -exec``, ``git diff --ext-diff`` ...)."""
