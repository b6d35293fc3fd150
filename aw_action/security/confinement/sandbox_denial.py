"""What each kernel sandbox mode forbids, in words, and whether a failure was its doing.

``FORBIDS`` is the one table of what a mode (``sandbox.SandboxMode``) forbids; the network part
depends on the confinement's TCP setting, not on the mode (``NETWORK_FORBIDS``). The tools add one
line to a failed call's result with it (``denial_line``):

- ``bash``: the harness cannot see a child's errno, so a failed command is judged from its exit
  code and its output, as codex's ``is_likely_sandbox_denied`` does (``likely_denied``): only a
  confined command that failed; any of ``DENIAL_WORDS`` in its output (case-insensitive) says
  yes; else the exit codes ``NOT_DENIAL_EXIT_CODES`` (shell misuse, not executable, not found) say
  no; else only a seccomp kill (``SIGSYS``) says yes. The line says "likely".
- the file tools: the harness opens the file itself (``security/confinement/fileio.py``) and knows the
  confinement, so a write it refuses is said for certain (``forbids_write``).
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from aw_action.security.confinement.sandbox import DEVICES, Confinement, SandboxMode

FORBIDS: dict[SandboxMode, str] = {
    "read-only": "writing any file (only /dev/null and the like are writable)",
    "workspace-write": "writing outside the workspace and the run's temp folder",
    "full": "",
}
"""What each mode forbids the agent's commands and file tools (reading is never forbidden)."""
NETWORK_FORBIDS = {"socket_filter": "opening any network socket (TCP, UDP, raw)", "tcp": "TCP connections"}
"""What a confinement without TCP forbids: no socket but a Unix one (seccomp), or no TCP (Landlock)."""
DENIAL_WORDS = (
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
)
"""Wording of a refusal (codex's keywords)."""
NOT_DENIAL_EXIT_CODES = frozenset({2, 126, 127})
"""Shell exit codes that mean something else: a builtin misused, not executable, not found."""
SIGSYS = int(getattr(signal, "SIGSYS", 31))


def confined(confinement: Confinement | None) -> bool:
    """Whether ``confinement`` forbids anything (a mode other than ``full``, or no TCP)."""
    return confinement is not None and (confinement.mode != "full" or not confinement.tcp)


def forbids(confinement: Confinement) -> str:
    """What ``confinement`` forbids, in words ("" when nothing)."""
    parts = [FORBIDS[confinement.mode]]
    if not confinement.tcp:
        parts.append(NETWORK_FORBIDS["socket_filter" if confinement.socket_filter else "tcp"])
    return " and ".join(p for p in parts if p)


def likely_denied(confinement: Confinement | None, exit_code: int | None, output: str) -> bool:
    """Whether a command that ended with ``exit_code`` (negative: killed by that signal) and
    printed ``output`` was likely refused by its sandbox (the module docstring's rule)."""
    if not confined(confinement) or not exit_code:
        return False
    text = output.lower()
    if any(word in text for word in DENIAL_WORDS):
        return True
    if exit_code in NOT_DENIAL_EXIT_CODES:
        return False
    seccomp = confinement is not None and confinement.socket_filter and not confinement.tcp
    return seccomp and exit_code in (-SIGSYS, 128 + SIGSYS)


def denial_line(confinement: Confinement, certain: bool = False) -> str:
    """The line a tool result adds: refused (or likely refused) by the mode's sandbox, and what
    that sandbox forbids."""
    how = "Refused" if certain else "Likely refused"
    return f"{how} by the `{confinement.mode}` sandbox, which forbids {forbids(confinement)}."


def forbids_write(confinement: Confinement | None, path: Path) -> bool:
    """Whether ``confinement`` forbids writing ``path`` (resolved as far as it exists)."""
    if confinement is None or confinement.mode == "full":
        return False
    target = os.path.realpath(path)
    if target in DEVICES:
        return False
    if confinement.mode == "read-only":
        return True
    roots = [os.path.realpath(root) for root in confinement.writable]
    return not any(target == root or target.startswith(root.rstrip("/") + "/") for root in roots)
