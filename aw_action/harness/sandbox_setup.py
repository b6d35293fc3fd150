"""The run's confinement, asked for once at assembly (docs/security.md, "The kernel sandbox").

``confine`` turns the config (``harness.sandbox``, ``-network``, ``-required``, ``harness.process-budget``;
the bash policy ``tools.bash`` implies) and a workflow's read-only steps into one
``ConfinementRequest``, asks ``security.confinement.plan.plan_confinement`` once (the tools' user,
the kernel, what it cannot enforce: a read-only sandbox without Landlock refuses the run, exit 2,
before anything changed), and applies the plan it gets back: the agent's ``safe-outputs.jsonl``
made (writable in ``workspace-write``), each finding a warning and a degraded notice.
``announce`` says what applies: one ``sandbox`` record (JSONL and the record files) and one line in
the step summary's "Agent access" note, both from the plan. A workflow step announces its own
confinements with another ``sandbox`` record when it starts (``step_record``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from aw_action.agent.events import HarnessEvent
from aw_action.run import record_table
from aw_action.run.config import RunConfig
from aw_action.run.journal import Journal
from aw_action.run.mode import gh_aw_mode
from aw_action.run.record import AccessNote, RunRecord
from aw_action.security.confinement.plan import SUBSYSTEM, ConfinementPlan, ConfinementRequest, plan_confinement
from aw_action.security.confinement.sandbox import SandboxSettings, ToolSandbox


def settings_of(config: RunConfig) -> SandboxSettings:
    harness = config.harness
    return SandboxSettings(harness.sandbox, harness.sandbox_network, harness.sandbox_required)


def bash_policy_mode(config: RunConfig) -> str | None:
    """The mode of the run's ``tools.bash`` policy (``None``: the config has no ``tools.bash``;
    the policy engine is imported only when it has one)."""
    if config.tools.bash is None:
        return None
    from aw_action.extensions.bash_policy import configured_policy

    return configured_policy(config).mode


def agent_records_file(config: RunConfig, output_dir: Path, env: Mapping[str, str]) -> Path | None:
    """``safe-outputs.jsonl``, which ``aw-harness safe-output`` appends to from bash: writable in
    ``workspace-write`` (``confine`` creates it: Landlock rules name existing files). None in
    gh-aw mode, where the safe outputs are gh-aw's."""
    return None if not config.safe_outputs or gh_aw_mode(env) else output_dir / record_table.SAFE_OUTPUTS.name


def confine(
    config: RunConfig,
    *,
    env: Mapping[str, str],
    workspace: Path,
    output_dir: Path,
    journal: Journal,
    read_only_steps: list[str],
) -> ConfinementPlan:
    """The run's confinement plan (the module docstring), applied; ``InvocationError`` when a
    read-only sandbox cannot be enforced and the config did not opt out."""
    records = agent_records_file(config, output_dir, env)
    request = ConfinementRequest(
        settings_of(config),
        workspace,
        bash_policy_mode(config),
        tuple(read_only_steps),
        config.harness.process_budget,
        (str(records),) if records is not None else (),
        home=env.get("HOME"),
    )
    plan = plan_confinement(request, env)
    if records is not None and not records.exists():
        os.close(os.open(records, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))
    for finding in plan.findings:
        journal.warn(finding.warning)
        journal.degrade(SUBSYSTEM, finding.detail, finding.fix)
    return plan


def announce(plan: ConfinementPlan, record: RunRecord, post: Callable[[HarnessEvent], None]) -> None:
    """The run's ``sandbox`` record and its line in the step summary."""
    post(HarnessEvent("sandbox", plan.record_fields()))
    enforced = plan.tools.bash.enforced() and plan.tools.files.enforced()
    record.security_notes.append(AccessNote(plan.summary_line(), weaker=not enforced))


def step_record(step_id: str, tools: ToolSandbox) -> HarnessEvent:
    """The ``sandbox`` record of a workflow step that starts."""
    return HarnessEvent("sandbox", {"scope": "step", "step": step_id, **tools.fields()})
