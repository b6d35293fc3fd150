"""The kernel sandbox's modes, what each one allows, and what the kernel offers to enforce them.

Modes (codex's names; docs/security.md "The kernel sandbox"):

- ``read-only``: read and execute anywhere, write only ``DEVICES``; no network: no TCP bind or
  connect (Landlock) and, where seccomp is available, no socket but a Unix one (UDP, raw).
- ``workspace-write``: also write the workspace, the run's private temp folder (``TMPDIR``) and
  the files a plan adds (the agent's ``safe-outputs.jsonl``); TCP as the settings say.
- ``full``: whatever the tools' user may; TCP allowed.

Which mode a command runs in (``SandboxSettings.resolve``): a read-only bash policy always means
``read-only``; otherwise the mode the config names (``harness.sandbox``), else the one the bash
policy implies (``IMPLIED_BY_POLICY``: an allow-list is a promise of restriction, so
``workspace-write``; no policy or an unrestricted one, ``full``). TCP: never in ``read-only``;
in a ``workspace-write`` the config *named*, only with ``harness.sandbox-network: true``
(codex's default); in one a policy *implied*, allowed unless ``sandbox-network: false`` (the
allow-list already names the programs: ``gh`` must reach GitHub). ``no_new_privs`` is set for
every command, in every mode.

``probe()`` asks the kernel which Landlock ABI it has (``landlock.kernel_abi``). The one seam
for tests and for operators: ``AW_SANDBOX_ABI_LIMIT=N`` caps the ABI the harness uses (``0``
simulates a kernel without Landlock, ``3`` one without TCP rules); it is read here and nowhere
else, and a capped ABI is reported as the run's (it can only weaken enforcement, which the run
then reports and, for read-only, refuses).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import field
from typing import Literal, get_args

from aw_action.environment.tuning import SANDBOX_ABI_LIMIT
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement import landlock, seccomp

SandboxMode = Literal["read-only", "workspace-write", "full"]
MODES: tuple[SandboxMode, ...] = get_args(SandboxMode)
"""From the strictest to the loosest."""
IMPLIED_BY_POLICY: dict[str | None, SandboxMode] = {
    "read-only": "read-only",
    "allow-list": "workspace-write",
    "deny": "workspace-write",
    "unrestricted": "full",
    None: "full",
}
"""The mode a bash policy's mode implies (``None``: no policy)."""
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")
"""Writable in every restricted mode (what codex and sandbox-runtime leave writable; ``/dev/shm``
is not: it is shared by every process on the host or container)."""
ABI_LIMIT_VAR = SANDBOX_ABI_LIMIT.name
TCP_ABI = 4


@dataclass(frozen=True)
class KernelSupport:
    """What the kernel offers the sandbox (the run's records say it)."""

    landlock_abi: int
    no_new_privs: bool
    note: str = ""
    """Why Landlock is missing or capped, when it is."""
    socket_filter: bool = False
    """Whether the seccomp filter (``seccomp.install_seccomp``) installs: only Unix sockets for a
    command without network, no metadata change and no keyring in ``read-only``."""

    @property
    def tcp(self) -> bool:
        """Whether TCP bind/connect can be restricted (Landlock ABI 4+, or no network socket at all)."""
        return self.landlock_abi >= TCP_ABI or self.socket_filter

    def fields(self) -> dict[str, object]:
        out: dict[str, object] = {
            "landlock_abi": self.landlock_abi,
            "tcp_restriction": self.tcp,
            "no_new_privs": self.no_new_privs,
            "socket_filter": self.socket_filter,
        }
        return {**out, "note": self.note} if self.note else out

    def describe(self) -> str:
        landlock_text = f"Landlock ABI {self.landlock_abi}" if self.landlock_abi else "no Landlock"
        extra = f" ({self.note})" if self.note else ""
        tcp = "yes" if self.tcp else "no"
        nnp = "yes" if self.no_new_privs else "no"
        sockets = "yes" if self.socket_filter else "no"
        return f"{landlock_text}{extra}, TCP restriction: {tcp}, UDP/raw socket filter: {sockets}, no_new_privs: {nnp}"


def probe(env: Mapping[str, str]) -> KernelSupport:
    """The kernel's Landlock ABI, capped by ``AW_SANDBOX_ABI_LIMIT`` when set (``ValueError``
    naming the variable when it is not a whole number)."""
    if not sys.platform.startswith("linux"):
        return KernelSupport(0, False, f"not Linux ({sys.platform})")
    socket_filter = seccomp.socket_filter_supported()
    abi = landlock.kernel_abi()
    note = "" if abi else "the kernel has no Landlock, or it is disabled or filtered"
    limit = SANDBOX_ABI_LIMIT.number(env)
    if limit is not None and int(limit) < abi:
        abi, note = int(limit), f"capped by {ABI_LIMIT_VAR}={int(limit)}"
    return KernelSupport(abi, True, note, socket_filter)


@dataclass(frozen=True)
class Confinement:
    """How one process is confined: the mode, TCP, the writable paths, the ABI to use."""

    mode: SandboxMode = "full"
    tcp: bool = True
    writable: tuple[str, ...] = ()
    """Beyond ``DEVICES``; only in ``workspace-write`` (and private confinements like the
    patch's git, whose one writable folder is its own)."""
    abi: int = 0
    source: str = ""
    """Why this mode (``harness.sandbox``, ``bash policy read-only``, ...): for messages."""
    socket_filter: bool = False
    """Whether the seccomp filter can be had (``seccomp.install_seccomp``): with ``tcp`` False, no
    socket but a Unix one, so no UDP, raw or netlink either; in ``read-only``, no metadata change
    (mode, owner, times, xattrs, inode flags) and no keyring either."""
    nproc: int = 0
    """``RLIMIT_NPROC`` of the command (``security/confinement/containment.py``); 0: none set."""

    def wrapper_spec(self) -> list[str]:
        """The exec wrapper's spec words (``landlock.main``)."""
        fs = self.mode != "full"
        paths = [*self.writable, *DEVICES] if fs else []
        unix_only = self.socket_filter and not self.tcp
        no_metadata = self.socket_filter and self.mode == "read-only"
        return landlock.spec_args(
            self.abi,
            fs=fs,
            writable=paths,
            tcp=self.tcp,
            unix_sockets_only=unix_only,
            nproc=self.nproc,
            no_metadata=no_metadata,
        )

    def enforced(self) -> bool:
        """Whether the kernel enforces every restriction this confinement asks for."""
        fs_ok = self.mode == "full" or self.abi > 0
        tcp_ok = self.tcp or self.abi >= TCP_ABI or self.socket_filter
        return fs_ok and tcp_ok

    def describe(self) -> str:
        tcp = "TCP allowed" if self.tcp else "no network sockets" if self.socket_filter else "no TCP"
        return f"{self.mode} ({tcp})"


UNCONFINED = Confinement()
"""Full access: the wrapper still sets ``no_new_privs``."""


@dataclass(frozen=True)
class SandboxSettings:
    """The run-wide choice: ``harness.sandbox``, ``harness.sandbox-network``,
    ``harness.sandbox-required`` (``None``: not written in the config)."""

    mode: SandboxMode | None = None
    network: bool | None = None
    required: bool = True
    """False: a read-only sandbox the kernel cannot enforce runs unenforced (a warning)
    instead of failing the invocation."""

    def resolve(self, policy_modes: Iterable[str | None] = ()) -> tuple[SandboxMode, bool]:
        """The (mode, TCP allowed) for a command judged by bash policies of ``policy_modes``
        (the rules in the module docstring)."""
        implied = [IMPLIED_BY_POLICY[m] for m in policy_modes] or ["full"]
        if "read-only" in implied:
            mode: SandboxMode = "read-only"
        elif self.mode is not None:
            mode = self.mode
        else:
            mode = min(implied, key=MODES.index)
        if mode == "read-only":
            return mode, False
        return mode, self.network if self.network is not None else self.mode != "workspace-write"


@dataclass(frozen=True)
class ToolSandbox:
    """The confinements of the agent's tools: ``bash``'s commands and the file helper of
    ``read``/``write``/``edit`` (in ``read-only``, ``write`` and ``edit`` are refused)."""

    bash: Confinement = UNCONFINED
    files: Confinement = UNCONFINED

    def fields(self) -> dict[str, object]:
        """What a ``sandbox`` record says of them (the run's, a workflow step's)."""
        return {
            "bash": self.bash.mode,
            "bash_tcp": self.bash.tcp,
            "files": self.files.mode,
            "enforced": self.bash.enforced() and self.files.enforced(),
            "metadata_refused": self.bash.mode == "read-only" and self.bash.socket_filter,
            "source": self.bash.source,
        }


@dataclass(frozen=True)
class SandboxPlan:
    """One run's sandbox: the settings, the kernel, and the folders ``workspace-write`` opens."""

    settings: SandboxSettings
    kernel: KernelSupport
    workspace: str
    tmpdir: str
    extra_writable: tuple[str, ...] = field(default_factory=tuple)
    process_limit: int = 0
    """``RLIMIT_NPROC`` of every confined command (0: none)."""

    def confinement(self, policy_modes: Iterable[str | None] = (), source: str = "") -> Confinement:
        modes = list(policy_modes)
        mode, tcp = self.settings.resolve(modes)
        writable = (self.workspace, self.tmpdir, *self.extra_writable) if mode == "workspace-write" else ()
        why = source or self.source(mode, modes)
        return Confinement(
            mode, tcp, writable, self.kernel.landlock_abi, why, self.kernel.socket_filter, self.process_limit
        )

    def source(self, mode: SandboxMode, policy_modes: list[str | None]) -> str:
        if mode == "read-only" and "read-only" in policy_modes:
            return "the bash policy is read-only"
        if self.settings.mode is not None:
            return f"harness.sandbox: {self.settings.mode}"
        return "the bash policy" if any(m is not None for m in policy_modes) else "no sandbox configured"

    def tools(self, bash_policies: Iterable[str | None], files_read_only: bool = False) -> ToolSandbox:
        """The tools' confinements for commands judged by ``bash_policies``; the file tools are
        ``read-only`` when ``files_read_only`` (a workflow step granting no write tool)."""
        files = (
            self.confinement(["read-only"], "the step grants no write tool") if files_read_only else self.confinement()
        )
        return ToolSandbox(self.confinement(bash_policies), files)
