"""Landlock and ``no_new_privs`` through ctypes, and the exec wrapper that applies them.

Standard library only, on purpose: ``security/confinement/spawn.py`` runs this file's source as
``python -I -S -c <source> <spec> <command...>`` in the child, after the user switch and before
the command: the wrapper sets ``PR_SET_NO_NEW_PRIVS``, restricts itself with Landlock as the spec
says, then ``execvp``s the command, which inherits the domain for good (Landlock cannot be
lifted, only narrowed). Doing it in the exec'd child rather than in ``preexec_fn`` keeps it out
of the harness's threads (``preexec_fn`` is unsafe with threads).

The spec (``spec_args``, words before ``--``): ``abi=N`` the highest Landlock ABI to use (0:
none, only ``no_new_privs``); ``fs=1`` restricts the filesystem, with ``write=PATH`` for each
folder or file that stays writable (everything else is read/execute only); ``tcp=0`` forbids
TCP bind and connect; ``sockets=unix`` and ``metadata=deny`` install one seccomp filter
(``install_seccomp``) of the ``network`` rules (only Unix sockets: UDP, raw and netlink are
refused too, which Landlock cannot restrict) and the ``metadata`` rules (no chmod, chown, utime,
xattr or inode-flag change, no keyring), as ``RULES`` declares them;
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

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
SECCOMP_DATA_NR, SECCOMP_DATA_ARCH, SECCOMP_DATA_ARG0 = 0, 4, 16
AF_UNIX = 1
X32_SYSCALL_BIT = 0x40000000
EPERM, EACCES, ENOSYS = 1, 13, 38
ALLOW = -1
"""In a rule, the action "let the call through" (any other action is an errno)."""
ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
"""Machine -> its ``AUDIT_ARCH_*``: the machines the seccomp filter has numbers for."""
SYSCALLS = {
    "socket": (41, 198),
    "ioctl": (16, 29),
    "io_uring_setup": (425, 425),
    "chmod": (90, None),
    "fchmod": (91, 52),
    "fchmodat": (268, 53),
    "fchmodat2": (452, 452),
    "chown": (92, None),
    "fchown": (93, 55),
    "lchown": (94, None),
    "fchownat": (260, 54),
    "utime": (132, None),
    "utimes": (235, None),
    "futimesat": (261, None),
    "utimensat": (280, 88),
    "setxattr": (188, 5),
    "lsetxattr": (189, 6),
    "fsetxattr": (190, 7),
    "removexattr": (197, 14),
    "lremovexattr": (198, 15),
    "fremovexattr": (199, 16),
    "setxattrat": (463, 463),
    "removexattrat": (466, 466),
    "file_setattr": (469, 469),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "keyctl": (250, 219),
}
"""Name -> (x86_64 number, aarch64 number; None: the machine has no such call)."""
TABLE_END = 470
"""The first syscall number the table does not know (after ``file_setattr``, Linux 6.17) on both
machines: every number from here on fails with ENOSYS, so a call added to a later kernel (a new
way to change metadata) is not let through unjudged."""
FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS = 0x40086602, 0x40046602
FS_IOC_SETVERSION, FS_IOC32_SETVERSION = 0x40087602, 0x40047602
FS_IOC_FSSETXATTR = 0x401C5820
INODE_FLAG_IOCTLS = (FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION, FS_IOC32_SETVERSION)
RULES = {
    "network": (("socket", 0, (AF_UNIX,), ALLOW, EACCES), ("io_uring_setup", None, (), EACCES, ALLOW)),
    "metadata": (
        *((name, None, (), EPERM, ALLOW) for name in ("chmod", "fchmod", "fchmodat", "fchmodat2")),
        *((name, None, (), EPERM, ALLOW) for name in ("chown", "fchown", "lchown", "fchownat")),
        *((name, None, (), EPERM, ALLOW) for name in ("utime", "utimes", "futimesat", "utimensat")),
        *((name, None, (), EPERM, ALLOW) for name in ("setxattr", "lsetxattr", "fsetxattr", "setxattrat")),
        *((name, None, (), EPERM, ALLOW) for name in ("removexattr", "lremovexattr", "fremovexattr")),
        ("removexattrat", None, (), EPERM, ALLOW),
        ("file_setattr", None, (), EPERM, ALLOW),
        ("ioctl", 1, INODE_FLAG_IOCTLS, EPERM, ALLOW),
        ("io_uring_setup", None, (), EPERM, ALLOW),
        *((name, None, (), EPERM, ALLOW) for name in ("add_key", "request_key", "keyctl")),
    ),
}
"""The seccomp rules, by group: ``(syscall, argument, values, action when it is one of them,
action otherwise)``; ``argument`` None: the call whatever its arguments (``action when`` applies).
``network`` (a command without network): only Unix sockets (``socket`` of any other family is
refused, UDP, raw and netlink too, which Landlock cannot all reach), and no io_uring (it opens
sockets and sets xattrs without those syscalls). ``metadata`` (``read-only``): no change of mode,
owner, times, extended attributes or inode flags, anywhere (Landlock has no right for these), and
no keyring (a key added outlives the command). The first rule naming a call decides it."""


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
    domain (ABI 6+). Needs ``no_new_privs`` first. Nothing to restrict at this ABI: no-op."""
    abi = min(abi, kernel_abi(), KNOWN_ABI)
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


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


Op = tuple[int, int, int, int]


def _rule_block(number: int, arg: int | None, values: tuple[int, ...], when: int, otherwise: int) -> list[Op]:
    """The instructions of one rule, entered with the syscall number loaded: a call that is
    ``number`` ends in the rule (a return), any other jumps past it, the number still loaded."""
    if arg is None:
        return [(BPF_JEQ_K, 0, 1, number), _ret(when)]
    block: list[Op] = [(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARG0 + 8 * arg)]  # the low half: an int argument
    block += [(BPF_JEQ_K, len(values) - i, 0, v) for i, v in enumerate(values)]
    block += [_ret(otherwise), _ret(when)]
    return [(BPF_JEQ_K, 0, len(block), number), *block]


def _ret(action: int) -> Op:
    return (BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW if action == ALLOW else SECCOMP_RET_ERRNO | action)


def seccomp_program(machine: str, groups: list[str]) -> list[Op]:
    """The seccomp program (classic BPF) of ``groups`` (``RULES``) for ``machine``: a call from
    another architecture's table (i386, x32) fails with EACCES, a number from ``TABLE_END`` on with
    ENOSYS, then each rule in order, then allow."""
    column = 0 if machine == "x86_64" else 1
    deny = _ret(EACCES)
    program: list[Op] = [
        (BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARCH),
        (BPF_JEQ_K, 1, 0, ARCHES[machine]),
        deny,
        (BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_NR),
        (BPF_JGE_K, 0, 1, X32_SYSCALL_BIT),
        deny,
        (BPF_JGE_K, 0, 1, TABLE_END),
        _ret(ENOSYS),
    ]
    decided: set[str] = set()
    for group in groups:
        for name, arg, values, when, otherwise in RULES[group]:
            number = SYSCALLS[name][column]
            if number is not None and name not in decided:
                decided.add(name)
                program += _rule_block(number, arg, values, when, otherwise)
    return [*program, _ret(ALLOW)]


def install_seccomp(groups: list[str]) -> None:
    """Install ``seccomp_program`` of ``groups`` for good (needs ``no_new_privs``); OSError on a
    machine it has no numbers for, or when the kernel refuses it."""
    machine = os.uname().machine
    if machine not in ARCHES:
        raise OSError(0, f"no seccomp filter for {machine}")
    program = seccomp_program(machine, groups)
    filters = (SockFilter * len(program))(*(SockFilter(*op) for op in program))
    fprog = SockFprog(len(program), filters)
    _check(_libc().prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp filter")


def socket_filter_supported() -> bool:
    """Whether ``install_seccomp`` can be installed here: a machine it has the numbers for,
    and a kernel with seccomp (``Seccomp:`` in ``/proc/self/status``)."""
    if os.uname().machine not in ARCHES:
        return False
    try:
        with open("/proc/self/status", "rb") as status:
            return any(line.startswith(b"Seccomp:") for line in status)
    except OSError:
        return False


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
