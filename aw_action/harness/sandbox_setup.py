"""The run's kernel sandbox, decided once at assembly (docs/security.md, "The kernel sandbox").

``plan_sandbox`` reads the config (``harness.sandbox``, ``-network``, ``-required``; the bash
policy ``tools.bash`` implies), asks the kernel what it offers (``security.confinement.sandbox.probe``),
and refuses or degrades what it cannot enforce, before any tool exists:

- a ``read-only`` sandbox (the run's, or a workflow step's read-only bash policy) without
  Landlock fails the invocation (``InvocationError``, exit 2) naming the cause, unless the
  config opted out (``harness.sandbox-required: false``): then a warning and a degraded notice;
- a ``workspace-write`` sandbox without Landlock, a TCP restriction without Landlock ABI 4, and a
  read-only sandbox without the seccomp filter (no refusal of metadata changes and the keyring)
  are a warning and a degraded notice.

It makes the run's private temp folder (the tools' ``TMPDIR``, the tools' user's, 0700; removed
at the seal) and says what applies: one ``sandbox`` record (JSONL and the record files)
and one line in the step summary's "Agent access" note. A workflow step announces its own
confinements with another ``sandbox`` record when it starts (``step_record``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from aw_action.agent.events import HarnessEvent
from aw_action.exits import InvocationError
from aw_action.extensions.bash_policy import configured_policy
from aw_action.run.config import RunConfig
from aw_action.run.journal import Journal
from aw_action.run.mode import gh_aw_mode
from aw_action.run.record import AccessNote, RunRecord
from aw_action.safe_outputs.records import RECORDS_FILE
from aw_action.security.confinement.identity import ToolIdentity
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
SOCKET_FILTER_PROBE = Confinement("full", tcp=False, abi=0, source="the socket filter probe", socket_filter=True)
OPT_OUT = "harness.sandbox-required: false (action input sandbox-required)"


def settings_of(config: RunConfig) -> SandboxSettings:
    harness = config.harness
    return SandboxSettings(harness.sandbox, harness.sandbox_network, harness.sandbox_required)


def bash_policy_mode(config: RunConfig) -> str | None:
    """The mode of the run's ``tools.bash`` policy (``None``: the config has no ``tools.bash``)."""
    return configured_policy(config).mode if config.tools.bash is not None else None


def kernel_support(env: Mapping[str, str]) -> KernelSupport:
    try:
        return probe(env)
    except ValueError as exc:
        raise InvocationError(str(exc)) from None


def socket_filter_installs() -> bool:
    """Whether the kernel accepts the wrapper's socket filter here (a container's own seccomp
    profile may refuse it): one confined ``true``, asked only by a run whose network is off, so
    that its commands are never refused for a filter that cannot be had (they would fail closed)."""
    probe_launch = Launch(env={"PATH": "/usr/bin:/bin"}, cwd="/", confinement=SOCKET_FILTER_PROBE)
    try:
        return run(["true"], probe_launch, timeout_s=10).returncode == 0
    except OSError:
        return False


def check_enforceable(
    kernel: KernelSupport, tools: ToolSandbox, settings: SandboxSettings, read_only_steps: list[str], journal: Journal
) -> None:
    """Refuse (exit 2) or degrade what the kernel cannot enforce (the module docstring)."""
    needs_read_only = tools.bash.mode == "read-only" or bool(read_only_steps)
    if kernel.landlock_abi == 0 and needs_read_only:
        where = f"workflow steps {', '.join(read_only_steps)}" if read_only_steps else "this run"
        cause = f"the read-only sandbox of {where} cannot be enforced: {kernel.note or 'no Landlock'}"
        if settings.required:
            raise InvocationError(f"{cause}; set {OPT_OUT} to run it unenforced")
        journal.warn(f"{cause}; running unenforced ({OPT_OUT})")
        journal.degrade(SUBSYSTEM, f"{cause}; ran unenforced", "run on a kernel with Landlock (Linux 5.13+)")
    elif kernel.landlock_abi == 0 and tools.bash.mode == "workspace-write":
        cause = f"the workspace-write sandbox cannot be enforced: {kernel.note or 'no Landlock'}"
        journal.warn(f"{cause}; commands may write anywhere their user may")
        journal.degrade(SUBSYSTEM, cause, "run on a kernel with Landlock (Linux 5.13+)")
    if kernel.landlock_abi and needs_read_only and not kernel.socket_filter:
        cause = "read-only cannot refuse metadata changes (chmod, chown, utime, xattrs) or keys: no seccomp filter"
        journal.warn(f"{cause}; commands may still change them")
        journal.degrade(SUBSYSTEM, cause, "run on x86_64 or aarch64 with seccomp")
    if kernel.landlock_abi and not kernel.tcp and (not tools.bash.tcp or read_only_steps):
        cause = f"TCP cannot be restricted: Landlock ABI {kernel.landlock_abi} has no network rules (needs 4)"
        journal.warn(f"{cause}; commands may still connect")
        journal.degrade(SUBSYSTEM, cause, "run on Linux 6.7 or later for TCP rules")


def private_tmpdir(identity: ToolIdentity | None) -> Path:
    """The tools' ``TMPDIR`` for this run: 0700, the tools' user's."""
    path = Path(tempfile.mkdtemp(prefix="aw-tools-", dir="/tmp" if os.path.isdir("/tmp") else None))
    if identity is not None:
        os.chown(path, identity.uid, identity.gid)
    return path


def agent_records_file(config: RunConfig, output_dir: Path, env: Mapping[str, str]) -> tuple[str, ...]:
    """``safe-outputs.jsonl``, which ``aw-harness safe-output`` appends to from bash: writable in
    ``workspace-write`` (created now: Landlock rules name existing files). None in gh-aw mode,
    where the safe outputs are gh-aw's."""
    if not config.safe_outputs or gh_aw_mode(env):
        return ()
    path = output_dir / RECORDS_FILE
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))
    return (str(path),)


def plan_sandbox(
    config: RunConfig,
    *,
    env: Mapping[str, str],
    workspace: Path,
    output_dir: Path,
    identity: ToolIdentity | None,
    journal: Journal,
    read_only_steps: list[str],
    process_limit: int = 0,
) -> SandboxPlan:
    """Decide the run's sandbox (the module docstring); ``InvocationError`` when a read-only
    sandbox cannot be enforced and the config did not opt out."""
    settings = settings_of(config)
    kernel = kernel_support(env)
    draft = SandboxPlan(settings, kernel, str(workspace.resolve()), "")
    if kernel.socket_filter and (read_only_steps or not draft.tools([bash_policy_mode(config)]).bash.tcp):
        kernel = replace(kernel, socket_filter=socket_filter_installs())
        draft = replace(draft, kernel=kernel)
    check_enforceable(kernel, draft.tools([bash_policy_mode(config)]), settings, read_only_steps, journal)
    tmpdir = private_tmpdir(identity)
    extra = agent_records_file(config, output_dir, env)
    return SandboxPlan(settings, kernel, draft.workspace, str(tmpdir), extra, process_limit)


def announce(
    plan: SandboxPlan,
    tools: ToolSandbox,
    record: RunRecord,
    post: Callable[[HarnessEvent], None],
    read_only_steps: list[str],
) -> None:
    """The run's ``sandbox`` record and its line in the step summary."""
    fields: dict[str, Any] = {"scope": "run", **confinements(tools), **plan.kernel.fields()}
    if read_only_steps:
        fields["read_only_steps"] = read_only_steps
    post(HarnessEvent("sandbox", fields))
    steps = f"; read-only workflow steps: {', '.join(read_only_steps)}" if read_only_steps else ""
    enforced = tools.bash.enforced() and tools.files.enforced()
    record.security_notes.append(
        AccessNote(
            f"Sandbox: bash {tools.bash.describe()}, file tools {tools.files.mode} ({tools.bash.source}){steps}; "
            f"{plan.kernel.describe()}" + ("." if enforced else "; the kernel does not enforce all of it."),
            weaker=not enforced,
        )
    )


def confinements(tools: ToolSandbox) -> dict[str, Any]:
    return {
        "bash": tools.bash.mode,
        "bash_tcp": tools.bash.tcp,
        "files": tools.files.mode,
        "enforced": tools.bash.enforced() and tools.files.enforced(),
        "metadata_refused": tools.bash.mode == "read-only" and tools.bash.socket_filter,
        "source": tools.bash.source,
    }


def step_record(step_id: str, tools: ToolSandbox) -> HarnessEvent:
    """The ``sandbox`` record of a workflow step that starts."""
    return HarnessEvent("sandbox", {"scope": "step", "step": step_id, **confinements(tools)})
