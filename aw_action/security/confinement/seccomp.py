"""The exec wrapper's seccomp filter: one table of syscalls and rules (``RULES``), and the one
function that assembles the BPF program from it (``seccomp_program``).

Standard library only, on purpose: ``security/confinement/spawn.py`` runs this file's source,
followed by ``landlock.py``'s, as the exec wrapper (``python -I -S -c <source>``), which installs
the program (``install_seccomp``) before it execs the command. So this module imports nothing but
``ctypes`` and ``os``, builds no data class or enum (``typing``, ``dataclasses`` and ``enum``
cost the wrapper milliseconds per command), and leaves every name ``landlock.py`` defines alone.

The rules come in groups the wrapper's spec asks for: ``network`` (``sockets=unix``, a command
without network) and ``metadata`` (``metadata=deny``, ``read-only``). Every program, whatever its
groups, first refuses a call from another architecture's table (i386 through ``int 0x80``, the
x32 ABI) with EACCES, and any syscall number from ``TABLE_END`` on with ENOSYS: a call added to a
later kernel (a new way to change metadata) is never let through unjudged. Then each rule of the
groups in order (the first rule naming a call decides it), then allow.

A new rule is one ``Rule`` row (docs/architecture.md, "A new sandbox rule"); the parametrised test
``tests/security/test_seccomp_table.py`` runs each row's call through the real wrapper.
"""

import ctypes
import os

EPERM, EACCES, ENOSYS = 1, 13, 38
ERRNO_NAMES = {EPERM: "EPERM", EACCES: "EACCES", ENOSYS: "ENOSYS"}
AF_UNIX = 1
FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS = 0x40086602, 0x40046602
FS_IOC_SETVERSION, FS_IOC32_SETVERSION = 0x40087602, 0x40047602
FS_IOC_FSSETXATTR = 0x401C5820
INODE_FLAG_IOCTLS = (FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR, FS_IOC_SETVERSION, FS_IOC32_SETVERSION)
"""The ``ioctl`` requests that change an inode's flags (immutable, append-only, ...) or version."""


class Rule:
    """One row of the table: ``syscall`` (its number on x86_64 and on aarch64; None: the machine
    has no such call) is refused with ``errno``: every call, or with ``arg`` set, only a call
    whose argument ``arg`` is one of ``refused``, or every call but one whose argument is one of
    ``allowed``. ``why``: what the rule keeps from a command, for the docs and the tests."""

    __slots__ = ("aarch64", "allowed", "arg", "errno", "group", "refused", "syscall", "why", "x86_64")

    def __init__(
        self,
        group: str,
        syscall: str,
        x86_64: int | None,
        aarch64: int | None,
        errno: int,
        why: str,
        arg: int | None = None,
        refused: tuple[int, ...] = (),
        allowed: tuple[int, ...] = (),
    ) -> None:
        self.group, self.syscall, self.x86_64, self.aarch64 = group, syscall, x86_64, aarch64
        self.errno, self.why, self.arg, self.refused, self.allowed = errno, why, arg, refused, allowed

    def number(self, machine: str) -> int | None:
        """The call's number on ``machine`` (one of ``ARCHES``); None: it has no such call."""
        return self.x86_64 if machine == "x86_64" else self.aarch64

    def action(self) -> str:
        """The rule in words: ``EPERM``, ``EPERM when argument 1 is one of 5 values``, ..."""
        name = ERRNO_NAMES[self.errno]
        if self.arg is None:
            return name
        if self.allowed:
            return f"{name} unless argument {self.arg} is one of {len(self.allowed)} values (allowed)"
        return f"{name} when argument {self.arg} is one of {len(self.refused)} values"


NO_SOCKET = "no socket but a Unix one: UDP, raw and netlink too, which Landlock cannot restrict"
NO_IO_URING = "io_uring opens sockets and sets xattrs without those syscalls"
MODE = "no change of a file's mode: Landlock has no right for it"
OWNER = "no change of a file's owner: Landlock has no right for it"
TIMES = "no change of a file's times: Landlock has no right for it"
XATTR = "no change of extended attributes: Landlock has no right for them"
KEYRING = "no kernel keyring: a key added outlives the command"
RULES: tuple[Rule, ...] = (
    Rule("network", "socket", 41, 198, EACCES, NO_SOCKET, arg=0, allowed=(AF_UNIX,)),
    Rule("network", "io_uring_setup", 425, 425, EACCES, NO_IO_URING),
    Rule("metadata", "chmod", 90, None, EPERM, MODE),
    Rule("metadata", "fchmod", 91, 52, EPERM, MODE),
    Rule("metadata", "fchmodat", 268, 53, EPERM, MODE),
    Rule("metadata", "fchmodat2", 452, 452, EPERM, MODE),
    Rule("metadata", "chown", 92, None, EPERM, OWNER),
    Rule("metadata", "fchown", 93, 55, EPERM, OWNER),
    Rule("metadata", "lchown", 94, None, EPERM, OWNER),
    Rule("metadata", "fchownat", 260, 54, EPERM, OWNER),
    Rule("metadata", "utime", 132, None, EPERM, TIMES),
    Rule("metadata", "utimes", 235, None, EPERM, TIMES),
    Rule("metadata", "futimesat", 261, None, EPERM, TIMES),
    Rule("metadata", "utimensat", 280, 88, EPERM, TIMES),
    Rule("metadata", "setxattr", 188, 5, EPERM, XATTR),
    Rule("metadata", "lsetxattr", 189, 6, EPERM, XATTR),
    Rule("metadata", "fsetxattr", 190, 7, EPERM, XATTR),
    Rule("metadata", "setxattrat", 463, 463, EPERM, XATTR),
    Rule("metadata", "removexattr", 197, 14, EPERM, XATTR),
    Rule("metadata", "lremovexattr", 198, 15, EPERM, XATTR),
    Rule("metadata", "fremovexattr", 199, 16, EPERM, XATTR),
    Rule("metadata", "removexattrat", 466, 466, EPERM, XATTR),
    Rule("metadata", "file_setattr", 469, 469, EPERM, "no change of inode flags or project ids (Linux 6.17)"),
    Rule("metadata", "ioctl", 16, 29, EPERM, "no change of inode flags or version", arg=1, refused=INODE_FLAG_IOCTLS),
    Rule("metadata", "io_uring_setup", 425, 425, EPERM, NO_IO_URING),
    Rule("metadata", "add_key", 248, 217, EPERM, KEYRING),
    Rule("metadata", "request_key", 249, 218, EPERM, KEYRING),
    Rule("metadata", "keyctl", 250, 219, EPERM, KEYRING),
)
"""The seccomp rules, in the order the program judges them."""
GROUPS = ("network", "metadata")
SYSCALLS = {rule.syscall: (rule.x86_64, rule.aarch64) for rule in RULES}
"""Name -> (x86_64 number, aarch64 number; None: the machine has no such call)."""
TABLE_END = 470
"""The first syscall number the table does not know (after ``file_setattr``, Linux 6.17) on both
machines: every number from here on fails with ENOSYS."""
ARCHES = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
"""Machine -> its ``AUDIT_ARCH_*``: the machines the table has numbers for."""
X32_SYSCALL_BIT = 0x40000000

PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x06
SECCOMP_DATA_NR, SECCOMP_DATA_ARCH, SECCOMP_DATA_ARG0 = 0, 4, 16
ALLOW = -1
"""As an action: let the call through (any other action is an errno)."""

Op = tuple[int, int, int, int]


def _ret(action: int) -> Op:
    return (BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW if action == ALLOW else SECCOMP_RET_ERRNO | action)


def _rule_block(rule: Rule, number: int) -> list[Op]:
    """The instructions of one rule, entered with the syscall number loaded: a call that is
    ``number`` ends in the rule (a return), any other jumps past it, the number still loaded."""
    if rule.arg is None:
        return [(BPF_JEQ_K, 0, 1, number), _ret(rule.errno)]
    values = rule.allowed or rule.refused
    when, otherwise = (ALLOW, rule.errno) if rule.allowed else (rule.errno, ALLOW)
    block: list[Op] = [(BPF_LD_W_ABS, 0, 0, SECCOMP_DATA_ARG0 + 8 * rule.arg)]  # the low half: an int argument
    block += [(BPF_JEQ_K, len(values) - i, 0, v) for i, v in enumerate(values)]
    block += [_ret(otherwise), _ret(when)]
    return [(BPF_JEQ_K, 0, len(block), number), *block]


def seccomp_program(machine: str, groups: list[str]) -> list[Op]:
    """The classic BPF program of the ``groups``' rules for ``machine`` (the module docstring)."""
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
        for rule in RULES:
            number = rule.number(machine)
            if rule.group == group and number is not None and rule.syscall not in decided:
                decided.add(rule.syscall)
                program += _rule_block(rule, number)
    return [*program, _ret(ALLOW)]


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(SockFilter))]


def install_seccomp(groups: list[str]) -> None:
    """Install ``seccomp_program`` of ``groups`` for good (needs ``no_new_privs``); OSError on a
    machine it has no numbers for, or when the kernel refuses it."""
    machine = os.uname().machine
    if machine not in ARCHES:
        raise OSError(0, f"no seccomp filter for {machine}")
    program = seccomp_program(machine, groups)
    filters = (SockFilter * len(program))(*(SockFilter(*op) for op in program))
    fprog = SockFprog(len(program), filters)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp filter: {os.strerror(err)}")


def socket_filter_supported() -> bool:
    """Whether ``install_seccomp`` can be installed here: a machine the table has the numbers
    for, and a kernel with seccomp (``Seccomp:`` in ``/proc/self/status``)."""
    if os.uname().machine not in ARCHES:
        return False
    try:
        with open("/proc/self/status", "rb") as status:
            return any(line.startswith(b"Seccomp:") for line in status)
    except OSError:
        return False
