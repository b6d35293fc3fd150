"""security/confinement/plan.py: the settings, the tools' user and the kernel in, one frozen
``ConfinementPlan`` out; and the harness asks for it once per run (``harness/sandbox_setup.confine``)
and takes the run's sandbox record, summary line and the tools' confinements from it."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from aw_action.exits import InvocationError
from aw_action.harness import sandbox_setup
from aw_action.harness.guards import guard_run
from aw_action.run.config import RunConfig
from aw_action.run.state import RunState
from aw_action.security.confinement import plan as plan_module
from aw_action.security.confinement.plan import ConfinementPlan, ConfinementRequest, plan_confinement
from aw_action.security.confinement.sandbox import SandboxSettings, probe

KERNEL = probe({})
ENV = {"PATH": "/usr/bin:/bin"}
NO_LANDLOCK = {**ENV, "AW_SANDBOX_ABI_LIMIT": "0"}


def request(tmp_path: Path, **fields: object) -> ConfinementRequest:
    settings = fields.pop("settings", SandboxSettings())
    return ConfinementRequest(settings, tmp_path, **fields)  # type: ignore[arg-type]


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The private temp folders the planner makes (removed after the test)."""
    paths: list[Path] = []
    real = plan_module.private_tmpdir

    def private_tmpdir(identity: object) -> Path:
        paths.append(real(identity))  # type: ignore[arg-type]
        return paths[-1]

    monkeypatch.setattr(plan_module, "private_tmpdir", private_tmpdir)
    yield paths
    for path in paths:
        os.rmdir(path)


def test_a_read_only_policy_plans_read_only_tools_and_says_so_in_one_record_and_line(
    tmp_path: Path, made: list[Path]
) -> None:
    plan = plan_confinement(request(tmp_path, bash_policy="read-only"), ENV)
    assert (plan.tools.bash.mode, plan.tools.bash.tcp) == ("read-only", False)
    assert plan.tools.files.mode == "full", "a bash policy judges commands, not the file tools"
    assert plan.sandbox.tmpdir == str(made[0]) and oct(made[0].stat().st_mode)[-3:] == "700"
    fields = plan.record_fields()
    assert fields["scope"] == "run" and fields["bash"] == "read-only" and fields["source"].startswith("the bash policy")
    assert fields["landlock_abi"] == KERNEL.landlock_abi
    assert plan.summary_line().startswith("Sandbox: bash read-only (") and plan.summary_line().endswith(".")
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.tools = plan.tools  # type: ignore[misc]


def test_the_process_budget_becomes_every_confined_commands_limit(tmp_path: Path, made: list[Path]) -> None:
    plan = plan_confinement(request(tmp_path, process_budget=64), ENV)
    assert plan.containment.budget == 64
    assert plan.sandbox.process_limit == plan.containment.limit == plan.tools.bash.nproc


def test_a_read_only_sandbox_without_landlock_refuses_before_anything_is_made(tmp_path: Path, made: list[Path]) -> None:
    with pytest.raises(InvocationError, match="read-only sandbox of this run cannot be enforced"):
        plan_confinement(request(tmp_path, settings=SandboxSettings(mode="read-only")), NO_LANDLOCK)
    with pytest.raises(InvocationError, match="workflow steps inspect"):
        plan_confinement(request(tmp_path, read_only_steps=("inspect",)), NO_LANDLOCK)
    assert made == [], "no temp folder for a refused run"


def test_what_the_kernel_cannot_enforce_is_a_finding_if_the_config_opted_out(tmp_path: Path, made: list[Path]) -> None:
    opted_out = SandboxSettings(mode="read-only", required=False)
    plan = plan_confinement(request(tmp_path, settings=opted_out), NO_LANDLOCK)
    assert [f.warning for f in plan.findings] == [
        "the read-only sandbox of this run cannot be enforced: capped by AW_SANDBOX_ABI_LIMIT=0; running "
        f"unenforced ({plan_module.OPT_OUT})"
    ]
    assert plan.record_fields()["enforced"] is False
    write = plan_confinement(request(tmp_path, settings=SandboxSettings(mode="workspace-write")), NO_LANDLOCK)
    assert [f.detail for f in write.findings][:1] == [
        "the workspace-write sandbox cannot be enforced: capped by AW_SANDBOX_ABI_LIMIT=0"
    ]


def test_a_bad_abi_cap_is_an_invocation_error_naming_the_variable(tmp_path: Path, made: list[Path]) -> None:
    with pytest.raises(InvocationError, match=r"AW_SANDBOX_ABI_LIMIT: .*'x'"):
        plan_confinement(request(tmp_path), {**ENV, "AW_SANDBOX_ABI_LIMIT": "x"})


def test_a_workflow_step_is_judged_by_its_policy_and_the_runs(tmp_path: Path, made: list[Path]) -> None:
    plan = plan_confinement(request(tmp_path, bash_policy="allow-list"), ENV)
    assert plan.tools.bash.mode == "workspace-write"
    step = plan.step_tools("unrestricted", files_read_only=True)
    assert step.bash.mode == "workspace-write", "the run's tools.bash still judges the step's commands"
    assert step.files.mode == "read-only" and step.files.source == "the step grants no write tool"
    assert plan.step_tools("read-only", files_read_only=False).bash.mode == "read-only"


def test_the_harness_asks_once_and_announces_what_the_plan_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[ConfinementPlan] = []

    def counted(req: ConfinementRequest, env: dict[str, str]) -> ConfinementPlan:
        asked.append(plan_confinement(req, env))
        return asked[-1]

    monkeypatch.setattr(sandbox_setup, "plan_confinement", counted)
    (tmp_path / "out").mkdir()
    state = RunState.for_model("faux/scripted")
    posted: list[object] = []
    config = RunConfig.model_validate({"engine": {"model": "faux/scripted"}, "tools": {"bash": ["ls"]}})
    guards = guard_run(
        config,
        env=ENV,
        workspace=tmp_path,
        output_dir=tmp_path / "out",
        record=state.record,
        journal=state.journal,
        post=posted.append,
        read_only_steps=["inspect"],
    )
    try:
        assert len(asked) == 1 and guards.plan is asked[0]
        plan = asked[0]
        assert plan.request.bash_policy == "allow-list" and plan.request.read_only_steps == ("inspect",)
        assert guards.tools is plan.tools and guards.identity == plan.identity
        assert [e.fields for e in posted if e.name == "sandbox"] == [plan.record_fields()]  # type: ignore[attr-defined]
        as_root = plan.identity is None and os.geteuid() == 0  # the "Unprotected" line says so
        assert state.record.security_notes[0].text == plan.containment.describe(cause=not as_root)
        assert state.record.security_notes[-1].text == plan.summary_line()
    finally:
        guards.seal(state.journal)


@pytest.mark.skipif(KERNEL.landlock_abi < 3, reason="needs Landlock ABI 3 to plan for 2")
def test_a_kernel_without_the_truncate_right_says_files_can_still_be_truncated(
    tmp_path: Path, made: list[Path]
) -> None:
    """Landlock refuses truncation from ABI 3 on (Linux 6.2): below it a read-only or
    workspace-write command can empty any file its user may write (``truncate``, ``open`` with
    ``O_TRUNC``), which the run's record and summary now say instead of staying silent (found by
    review: Ubuntu 22.04's 5.15 and Debian 12's 6.1 offer ABI 1 and 2)."""
    abi_2 = {**ENV, "AW_SANDBOX_ABI_LIMIT": "2"}
    for mode in ("read-only", "workspace-write"):
        plan = plan_confinement(request(tmp_path, settings=SandboxSettings(mode=mode)), abi_2)  # type: ignore[arg-type]
        assert any(
            "no truncate right (needs 3)" in f.warning and "may still empty files" in f.warning for f in plan.findings
        )
    plan = plan_confinement(request(tmp_path, settings=SandboxSettings(mode="read-only")), ENV)
    assert not any("truncate" in f.warning for f in plan.findings)
