"""Landlock and ``no_new_privs`` through ctypes, and the exec wrapper that applies them.

Standard library only, on purpose: ``security/confinement/spawn.py`` runs this file's source,
after ``seccomp.py``'s (the seccomp table and its program: the names imported below when this
module is imported), as ``python -I -S -c <source> <spec> <command...>`` in the child, after the
user switch and before
the command: the wrapper sets ``PR_SET_NO_NEW_PRIVS``, restricts itself with Landlock as the spec
says, then ``execvp``s the command, which inherits the domain for good (Landlock cannot be
lifted, only narrowed). Doing it in the exec'd child rather than in ``preexec_fn`` keeps it out
of the harness's threads (``preexec_fn`` is unsafe with threads).

The spec (``spec_args``, words before ``--``): ``abi=N`` the highest Landlock ABI to use (0:
none, only ``no_new_privs``); ``fs=1`` restricts the filesystem, with ``write=PATH`` for each
folder or file that stays writable (everything else is read/execute only); ``tcp=0`` forbids
TCP bind and connect; ``sockets=unix`` and ``metadata=deny`` install one seccomp filter
(``seccomp.install_seccomp``) of the ``network`` rules (only Unix sockets: UDP, raw and netlink
are refused too, which Landlock cannot restrict) and the ``metadata`` rules (no chmod, chown,
utime, xattr or inode-flag change, no keyring), as ``seccomp.RULES`` declares them;
``nproc=N`` sets ``RLIMIT_NPROC`` (soft and hard) to N: the tasks the command's real uid may have;
``unset=NAME`` removes a variable the interpreter itself added (Python coerces a C locale by
setting ``LC_CTYPE``): the command gets exactly the caller's environment.
Plain words rather than JSON: importing ``json`` costs the wrapper ~5 ms.
Rights the kernel's ABI does not know are masked off (ABI 1..7; a newer kernel is used as 7).
Paths that do not exist are skipped. Any failure to apply what was asked ends the wrapper with
exit 126 and one line on stderr, before the command runs: a confinement is applied whole or not
at all.
"""

import ctypes
import os
import stat
import sys

if __name__ != "__main__":  # imported; as the wrapper, spawn.py puts seccomp.py's source before this one
    from aw_action.security.confinement.seccomp import (  # noqa: F401  (the wrapper's names, as before)
        BPF_JEQ_K,
        BPF_JGE_K,
        BPF_LD_W_ABS,
        BPF_RET_K,
        ENOSYS,
        PR_SET_SECCOMP,
        RULES,
        SECCOMP_DATA_ARG0,
        SECCOMP_DATA_NR,
        SECCOMP_MODE_FILTER,
        SECCOMP_RET_ALLOW,
        SECCOMP_RET_ERRNO,
        SYSCALLS,
        TABLE_END,
        SockFilter,
        SockFprog,
        install_seccomp,
        seccomp_program,
        socket_filter_supported,
    )

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
"""The same numbers on x86_64, aarch64 and every architecture using the generic table."""
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH, RULE_NET_PORT = 1, 2
PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS = 38, 39

FS_EXECUTE = 1 << 0
FS_WRITE_FILE = 1 << 1
FS_READ_FILE = 1 << 2
FS_READ_DIR = 1 << 3
FS_REFER = 1 << 13
FS_TRUNCATE = 1 << 14
FS_IOCTL_DEV = 1 << 15
NET_BIND_TCP = 1 << 0
NET_CONNECT_TCP = 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0

FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
"""Every filesystem right each ABI knows (6 and 7 add none)."""
KNOWN_ABI = 7
READ_RIGHTS = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR
FILE_RIGHTS = FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV
"""The rights a rule on a file (not a folder) may carry."""
EXIT_NOT_APPLIED = 126
EXIT_NOT_FOUND = 127


class RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def kernel_abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is absent, disabled or filtered out."""
    libc = _libc()
    result = libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(result), 0)


def fs_rights(abi: int) -> int:
    """Every filesystem right ``abi`` knows (0 for no Landlock)."""
    return FS_BY_ABI.get(min(abi, 5), 0) if abi > 0 else 0


def set_no_new_privs() -> None:
    """``PR_SET_NO_NEW_PRIVS``: no set-user-id, set-group-id or file capability gains from here on."""
    _check(_libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")


def no_new_privs() -> bool:
    """Whether ``no_new_privs`` is set on the calling thread."""
    return bool(_libc().prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)


def _add_path(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        attr = PathBeneathAttr(rights, fd)
        _check(libc.syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(attr), 0), f"landlock rule {path}")
    finally:
        os.close(fd)


def restrict(abi: int, *, fs: bool, writable: list[str], tcp: bool) -> None:
    """Restrict the calling thread (and what it execs) with Landlock at ``min(abi, kernel)``.

    ``fs``: reads and execution stay allowed everywhere; writes only beneath ``writable``.
    ``tcp`` False: no TCP bind or connect (ABI 4+) and no abstract Unix socket outside the
    domain (ABI 6+). Needs ``no_new_privs`` first. Nothing to restrict at this ABI: no-op.
    ``OSError`` when something is to be restricted and the kernel offers less than ``abi`` (the
    version the run's confinement was planned and reported for): the wrapper then refuses to run
    the command rather than run it with less than the run says it has."""
    planned = min(abi, KNOWN_ABI)
    kernel = kernel_abi()
    if (fs or not tcp) and kernel < planned:
        raise OSError(f"Landlock ABI {kernel} here, {planned} planned")
    abi = min(planned, kernel)
    handled = fs_rights(abi) if fs else 0
    net = NET_BIND_TCP | NET_CONNECT_TCP if not tcp and abi >= 4 else 0
    scoped = SCOPE_ABSTRACT_UNIX_SOCKET if not tcp and abi >= 6 else 0
    if not (handled or net or scoped):
        return
    libc = _libc()
    attr = RulesetAttr(handled, net, scoped)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    ruleset = _check(libc.syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), 0), "landlock")
    try:
        if handled:
            _add_path(libc, ruleset, "/", READ_RIGHTS & handled)
            for path in writable:
                _add_path(libc, ruleset, path, handled)
        _check(libc.syscall(SYS_RESTRICT_SELF, ruleset, 0), "landlock_restrict_self")
    finally:
        os.close(ruleset)


def spec_args(
    abi: int,
    *,
    fs: bool,
    writable: list[str],
    tcp: bool,
    unix_sockets_only: bool = False,
    nproc: int = 0,
    no_metadata: bool = False,
) -> list[str]:
    """The wrapper's spec words for ``restrict``'s arguments (and ``sockets=unix`` and
    ``metadata=deny`` for ``install_seccomp``'s groups, ``nproc=N`` for ``RLIMIT_NPROC``), ending
    with ``--``."""
    seccomp = (["sockets=unix"] if unix_sockets_only else []) + (["metadata=deny"] if no_metadata else [])
    limit = [f"nproc={nproc}"] if nproc > 0 else []
    return [f"abi={abi}", f"fs={int(fs)}", f"tcp={int(tcp)}", *seccomp, *limit, *(f"write={p}" for p in writable), "--"]


def _parse(words: list[str]) -> tuple[dict[str, str], list[str], list[str]]:
    end = words.index("--")
    settings: dict[str, str] = {}
    writable: list[str] = []
    for word in words[:end]:
        key, _, value = word.partition("=")
        if key == "write":
            writable.append(value)
        elif key == "unset":
            os.environ.pop(value, None)
        else:
            settings[key] = value
    return settings, writable, words[end + 1 :]


def main(argv: list[str]) -> None:
    """``<spec words> -- <command> [args...]``: confine as the spec says, then exec the command."""
    try:
        settings, writable, command = _parse(argv)
        if not command:
            raise ValueError("no command after --")
        set_no_new_privs()
        restrict(int(settings["abi"]), fs=settings["fs"] == "1", writable=writable, tcp=settings["tcp"] == "1")
        groups = ["network"] if settings.get("sockets") == "unix" else []
        groups += ["metadata"] if settings.get("metadata") == "deny" else []
        if groups:
            install_seccomp(groups)
        if int(settings.get("nproc", "0")) > 0:
            import resource

            limit, hard = int(settings["nproc"]), resource.getrlimit(resource.RLIMIT_NPROC)[1]
            limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
            resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))
    except (OSError, ValueError, KeyError) as exc:
        sys.stderr.write(f"aw-harness sandbox: not applied, the command did not run: {exc}\n")
        os._exit(EXIT_NOT_APPLIED)
    try:
        import _signal  # type: ignore[import-not-found]  # no enum import; SIGPIPE/SIGXFSZ as a shell has them

        for name in ("SIGPIPE", "SIGXFSZ"):
            _signal.signal(getattr(_signal, name), _signal.SIG_DFL)
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"aw-harness sandbox: {command[0]}: {exc.strerror}\n")
        os._exit(EXIT_NOT_FOUND if isinstance(exc, FileNotFoundError) else EXIT_NOT_APPLIED)


if __name__ == "__main__":
    main(sys.argv[1:])
