"""The tools' confinement, decided once (docs/security.md, "The kernel sandbox"): what the run asks
for (``ConfinementRequest``: the sandbox settings, the ``tools.bash`` mode, the read-only workflow
steps, the process budget) and what the machine offers (the tools' user, the kernel) in, one
frozen ``ConfinementPlan`` out. The harness asks once (``plan_confinement``) and applies the value:
it warns and degrades each finding, announces ``record_fields`` and ``summary_line``, and hands
``tools`` / ``step_tools`` to the tools. The seam is codex's: a policy value, one selection against
what the platform can enforce, then a pure transform per command (``Confinement.wrapper_spec``).

``plan_confinement`` asks, in order:

1. the tools' user (``identity.decide_tool_identity``, then ``reachable``: a user who cannot
   reach the workspace is none) and their process bound (``containment.plan``);
2. the kernel (``sandbox.probe``; ``AW_SANDBOX_ABI_LIMIT`` caps it) and, when a command will run
   with the network off or a workflow step is read-only, whether the seccomp filter installs
   here (one confined ``true``: a container's own profile may refuse it, and a command must never
   fail for a filter that cannot be had);
3. what the kernel cannot enforce: a ``read-only`` sandbox (the run's, or a workflow step's)
   without Landlock refuses the run (``InvocationError``, exit 2, before anything changed) unless
   the config opted out (``harness.sandbox-required: false``: a finding); ``workspace-write``
   without Landlock, ``read-only`` without the seccomp filter (no refusal of metadata changes and
   the keyring) and TCP off without Landlock ABI 4 are findings (a warning and a degraded
   ``sandbox`` subsystem each);
4. then, the run going ahead, it makes the run's private temp folder (the tools' ``TMPDIR``,
   0700, the tools' user's; the seal removes it): the one thing it creates.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from aw_action.exits import InvocationError
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement import containment
from aw_action.security.confinement.identity import IdentityDecision, ToolIdentity, decide_tool_identity, reachable
from aw_action.security.confinement.sandbox import (
    Confinement,
    KernelSupport,
    SandboxPlan,
    SandboxSettings,
    ToolSandbox,
    probe,
)
from aw_action.security.confinement.spawn import Launch, run

SUBSYSTEM = "sandbox"
"""The degraded subsystem of every finding."""
OPT_OUT = "harness.sandbox-required: false (action input sandbox-required)"
SOCKET_FILTER_PROBE = Confinement("full", tcp=False, abi=0, source="the socket filter probe", socket_filter=True)
LANDLOCK_FIX = "run on a kernel with Landlock (Linux 5.13+)"
TRUNCATE_ABI = 3
"""The Landlock ABI that refuses truncation (``LANDLOCK_ACCESS_FS_TRUNCATE``, Linux 6.2); below it a
confined command may truncate any file its user may write, though not open it for writing."""
TRUNCATE_FIX = "run on Linux 6.2 or later for truncation rules"


@dataclass(frozen=True)
class ConfinementRequest:
    """What the run asks for, before the machine is asked what it offers."""

    settings: SandboxSettings
    workspace: Path
    bash_policy: str | None = None
    """The mode of the config's ``tools.bash`` policy (``None``: none written)."""
    read_only_steps: tuple[str, ...] = ()
    """A workflow's steps whose bash policy is read-only (they need Landlock too)."""
    process_budget: int = 0
    """``harness.process-budget``: the tasks the tools' user may add."""
    extra_writable: tuple[str, ...] = ()
    """Files ``workspace-write`` opens beside the workspace (the agent's ``safe-outputs.jsonl``);
    the caller creates them before any command runs (Landlock rules name existing files)."""
    home: str | None = None
    """``HOME`` as the harness has it: the tools' user's home when it owns that folder."""


@dataclass(frozen=True)
class Finding:
    """What the kernel cannot enforce of the plan: a warning and a degraded ``sandbox``."""

    warning: str
    detail: str
    fix: str


@dataclass(frozen=True)
class ConfinementPlan:
    """One run's confinement: who the tools run as, how many processes they may have, the kernel
    sandbox of their commands (the run's and each workflow step's), and what of it is not enforced."""

    request: ConfinementRequest
    decision: IdentityDecision
    containment: containment.Containment
    sandbox: SandboxPlan
    tools: ToolSandbox
    """The tools' confinements outside any workflow step."""
    findings: tuple[Finding, ...] = ()

    @property
    def identity(self) -> ToolIdentity | None:
        return self.decision.identity

    def step_tools(self, bash_mode: str, files_read_only: bool) -> ToolSandbox:
        """A workflow step's: its bash policy and the run's ``tools.bash`` both judge a command;
        the file tools are read-only when ``files_read_only`` (the step grants no write tool)."""
        run_policy = self.request.bash_policy
        policies = [bash_mode] if run_policy is None else [bash_mode, run_policy]
        return self.sandbox.tools(policies, files_read_only=files_read_only)

    def record_fields(self) -> dict[str, Any]:
        """The run's ``sandbox`` record."""
        fields: dict[str, Any] = {"scope": "run", **self.tools.fields(), **self.sandbox.kernel.fields()}
        if self.request.read_only_steps:
            fields["read_only_steps"] = list(self.request.read_only_steps)
        return fields

    def summary_line(self) -> str:
        """The run's line in the step summary's "Agent access" note."""
        bash, files = self.tools.bash, self.tools.files
        steps = self.request.read_only_steps
        more = f"; read-only workflow steps: {', '.join(steps)}" if steps else ""
        return (
            f"Sandbox: bash {bash.describe()}, file tools {files.mode} ({bash.source}){more}; "
            f"{self.sandbox.kernel.describe()}"
            + ("." if bash.enforced() and files.enforced() else "; the kernel does not enforce all of it.")
        )


def plan_confinement(request: ConfinementRequest, env: Mapping[str, str]) -> ConfinementPlan:
    """Decide the run's confinement (the module docstring). ``InvocationError`` (exit 2) when a
    read-only sandbox cannot be enforced and the config did not opt out, or when
    ``AW_SANDBOX_ABI_LIMIT`` is no whole number."""
    decision = reachable(decide_tool_identity(request.workspace, env_home=request.home), request.workspace)
    processes = containment.plan(decision.identity, request.process_budget)
    kernel = kernel_support(env)
    draft = SandboxPlan(request.settings, kernel, str(request.workspace.resolve()), "")
    run_tools = draft.tools([request.bash_policy])
    if kernel.socket_filter and (request.read_only_steps or not run_tools.bash.tcp):
        draft = replace(draft, kernel=replace(kernel, socket_filter=socket_filter_installs()))
        run_tools = draft.tools([request.bash_policy])
    findings = judge(draft.kernel, run_tools, request)
    tmpdir = private_tmpdir(decision.identity)
    sandbox = replace(draft, tmpdir=str(tmpdir), extra_writable=request.extra_writable, process_limit=processes.limit)
    return ConfinementPlan(request, decision, processes, sandbox, sandbox.tools([request.bash_policy]), findings)


def kernel_support(env: Mapping[str, str]) -> KernelSupport:
    """What the kernel offers (``sandbox.probe``); ``InvocationError`` (exit 2) naming
    ``AW_SANDBOX_ABI_LIMIT`` when it is no whole number."""
    try:
        return probe(env)
    except ValueError as exc:
        raise InvocationError(str(exc)) from None


def judge(kernel: KernelSupport, tools: ToolSandbox, request: ConfinementRequest) -> tuple[Finding, ...]:
    """What ``kernel`` cannot enforce of ``tools`` and the read-only steps: the findings, or
    ``InvocationError`` for a read-only sandbox without Landlock the config did not opt out of."""
    steps = request.read_only_steps
    needs_read_only = tools.bash.mode == "read-only" or bool(steps)
    findings: list[Finding] = []
    if kernel.landlock_abi == 0 and needs_read_only:
        where = f"workflow steps {', '.join(steps)}" if steps else "this run"
        cause = f"the read-only sandbox of {where} cannot be enforced: {kernel.note or 'no Landlock'}"
        if request.settings.required:
            raise InvocationError(f"{cause}; set {OPT_OUT} to run it unenforced")
        findings.append(Finding(f"{cause}; running unenforced ({OPT_OUT})", f"{cause}; ran unenforced", LANDLOCK_FIX))
    elif kernel.landlock_abi == 0 and tools.bash.mode == "workspace-write":
        cause = f"the workspace-write sandbox cannot be enforced: {kernel.note or 'no Landlock'}"
        findings.append(Finding(f"{cause}; commands may write anywhere their user may", cause, LANDLOCK_FIX))
    if 0 < kernel.landlock_abi < TRUNCATE_ABI and (needs_read_only or tools.bash.mode == "workspace-write"):
        cause = (
            f"files cannot be kept from being truncated (truncate, open with O_TRUNC): Landlock ABI "
            f"{kernel.landlock_abi} has no truncate right (needs {TRUNCATE_ABI})"
        )
        findings.append(Finding(f"{cause}; commands may still empty files their user may write", cause, TRUNCATE_FIX))
    if kernel.landlock_abi and needs_read_only and not kernel.socket_filter:
        cause = "read-only cannot refuse metadata changes (chmod, chown, utime, xattrs) or keys: no seccomp filter"
        findings.append(
            Finding(f"{cause}; commands may still change them", cause, "run on x86_64 or aarch64 with seccomp")
        )
    if kernel.landlock_abi and not kernel.tcp and (not tools.bash.tcp or steps):
        cause = f"TCP cannot be restricted: Landlock ABI {kernel.landlock_abi} has no network rules (needs 4)"
        findings.append(
            Finding(f"{cause}; commands may still connect", cause, "run on Linux 6.7 or later for TCP rules")
        )
    return tuple(findings)


def socket_filter_installs() -> bool:
    """Whether the kernel accepts the wrapper's seccomp filter here (a container's own seccomp
    profile may refuse it): one confined ``true``."""
    probe_launch = Launch(env={"PATH": "/usr/bin:/bin"}, cwd="/", confinement=SOCKET_FILTER_PROBE)
    try:
        return run(["true"], probe_launch, timeout_s=10).returncode == 0
    except OSError:
        return False


def private_tmpdir(identity: ToolIdentity | None) -> Path:
    """The tools' ``TMPDIR`` for this run: 0700, the tools' user's."""
    path = Path(tempfile.mkdtemp(prefix="aw-tools-", dir="/tmp" if os.path.isdir("/tmp") else None))
    if identity is not None:
        os.chown(path, identity.uid, identity.gid)
    return path
