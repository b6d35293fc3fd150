"""harness/guards.py: the decisions a run makes before any tool runs, and the seal at its end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aw_action.harness.guards import ISOLATION_CHECK, github_grant, guard_run
from aw_action.run.config import RunConfig
from aw_action.run.state import RunState
from aw_action.security.confinement.identity import ToolIdentity

REPO = Path(__file__).resolve().parents[2]
ENV = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/root",
    "GITHUB_TOKEN": "ghs_GuardsPlantedToken0123456789",
    "ANTHROPIC_API_KEY": "sk-ant-api03-GuardsPlantedKey0123456789",
}


def config(**extra: object) -> RunConfig:
    return RunConfig.model_validate({"engine": {"model": "faux/scripted"}, **extra})


def test_github_access_is_granted_only_by_tools_github_written_in_the_config() -> None:
    assert not github_grant(config()).granted
    assert not github_grant(config(tools={"bash": ["gh"]})).granted
    granted = github_grant(config(tools={"github": {"toolsets": ["issues"]}}))
    assert granted.granted and "toolsets: issues" in granted.reason
    assert github_grant(config(tools={"github": {}})).granted


def test_the_tool_env_holds_the_github_token_only_when_granted_and_the_summary_says_so(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    state = RunState.for_model("faux/scripted")
    denied = guard_run(config(), env=ENV, workspace=tmp_path, output_dir=tmp_path / "out", **_run(state))
    assert set(denied.tool_env(ENV, [], tmp_path / "out")) >= {"PATH", "AW_OUTPUT_DIR"}
    assert "GITHUB_TOKEN" not in denied.tool_env(ENV, [], tmp_path / "out")
    assert not any("GitHub access" in n.text for n in state.record.security_notes)
    state = RunState.for_model("faux/scripted")
    granted = guard_run(
        config(tools={"github": {}}), env=ENV, workspace=tmp_path, output_dir=tmp_path / "out", **_run(state)
    )
    env = granted.tool_env(ENV, [ENV["GITHUB_TOKEN"], ENV["ANTHROPIC_API_KEY"]], tmp_path / "out")
    assert env["GITHUB_TOKEN"] == ENV["GITHUB_TOKEN"] and "ANTHROPIC_API_KEY" not in env
    assert any(n.text.startswith("GitHub access granted") for n in state.record.security_notes)


def test_a_grant_with_no_token_set_says_the_tools_see_none(tmp_path: Path) -> None:
    """A replay runs the recorded config, which may grant GitHub access, with no token at all: the
    note must not claim an access the commands never had."""
    (tmp_path / "out").mkdir()
    state = RunState.for_model("faux/scripted")
    no_token = {k: v for k, v in ENV.items() if k != "GITHUB_TOKEN"}
    guards = guard_run(
        config(tools={"github": {}}), env=no_token, workspace=tmp_path, output_dir=tmp_path / "out", **_run(state)
    )
    assert "GITHUB_TOKEN" not in guards.tool_env(no_token, [], tmp_path / "out")
    [note] = [n for n in state.record.security_notes if "GitHub" in n.text]
    assert not note.text.startswith("GitHub access granted")
    assert note.text.startswith("No GitHub access: the config grants it (tools.github), but this run has no GitHub")


def _run(state: RunState) -> dict[str, object]:
    return {"record": state.record, "journal": state.journal}


def test_unprotected_runs_on_a_runner_warn_with_the_isolation_check(tmp_path: Path) -> None:
    state = RunState.for_model("faux/scripted")
    warned: list[tuple[str, dict[str, object]]] = []
    state.journal.announce = lambda message, fields: warned.append((message, fields))
    (tmp_path / "out").mkdir()
    env = {**ENV, "GITHUB_ACTIONS": "true"}
    guards = guard_run(config(), env=env, workspace=tmp_path, output_dir=tmp_path / "out", **_run(state))
    if guards.decision.protected:
        pytest.skip("this machine has an 'aw-agent' user: a root-owned workspace is protected here")
    assert [fields for _, fields in warned] == [{"check": ISOLATION_CHECK}]
    assert "tools are not isolated" in warned[0][0]
    if os.geteuid() == 0:
        [note] = [n for n in state.record.security_notes if n.text.startswith("Unprotected")]
        assert note.weaker, "on a runner, tools run as root are weaker than the defaults: on the first screen"
        [processes] = [n for n in state.record.security_notes if n.text.startswith("Processes")]
        assert "root" not in processes.text and not processes.weaker, "said once, by the Unprotected line"


def test_unprotected_runs_on_the_users_machine_are_noted_not_warned(tmp_path: Path) -> None:
    """Locally the tools run as the user who started the run (or root, as that user chose): no
    warning about an image the user does not run, but the record's security note says it."""
    state = RunState.for_model("faux/scripted")
    warned: list[tuple[str, dict[str, object]]] = []
    state.journal.announce = lambda message, fields: warned.append((message, fields))
    (tmp_path / "out").mkdir()
    guards = guard_run(config(), env=ENV, workspace=tmp_path, output_dir=tmp_path / "out", **_run(state))
    if guards.decision.protected:
        pytest.skip("this machine has an 'aw-agent' user: a root-owned workspace is protected here")
    assert warned == []
    [note] = [n for n in state.record.security_notes if n.text.startswith("Unprotected")]
    assert note.text == f"Unprotected: {guards.decision.reason}."
    assert not note.weaker, "on one's own machine, as chosen: in the summary's collapsed part only"


def test_an_output_dir_holding_the_workspace_is_not_taken_over(user_dir: Path, tool_user: ToolIdentity) -> None:
    state = RunState.for_model("faux/scripted")
    (user_dir / "src.py").write_text("print(1)\n")
    guards = guard_run(config(), env=ENV, workspace=user_dir, output_dir=user_dir, **_run(state))
    assert guards.decision.protected
    assert user_dir.stat().st_uid == tool_user.uid and (user_dir / "src.py").stat().st_uid == 0
    assert any("holds the workspace" in w for w in state.journal.warnings)


def test_the_safe_outputs_file_is_the_agent_s_and_nothing_else_is(
    user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    state = RunState.for_model("faux/scripted")
    out = shared_tmp / "out"
    out.mkdir()
    cfg = config(**{"safe-outputs": {"add-comment": {}}})
    guards = guard_run(cfg, env=ENV, workspace=user_dir, output_dir=out, **_run(state))
    assert guards.decision.protected and out.stat().st_uid == 0 and oct(out.stat().st_mode)[-3:] == "755"
    records = out / "safe-outputs.jsonl"
    assert records.stat().st_uid == tool_user.uid
    as_agent = {"user": tool_user.uid, "group": tool_user.gid, "extra_groups": []}
    ok = subprocess.run(["sh", "-c", f"echo '{{}}' >> {records}"], capture_output=True, **as_agent)  # type: ignore[call-overload]
    denied = subprocess.run(["sh", "-c", f"touch {out}/forged.jsonl"], capture_output=True, **as_agent)  # type: ignore[call-overload]
    assert ok.returncode == 0 and denied.returncode != 0


def test_seal_restores_file_commands_and_names_tampered_records_once(tmp_path: Path) -> None:
    state = RunState.for_model("faux/scripted")
    out = tmp_path / "out"
    out.mkdir()
    github_env = tmp_path / "github_env"
    github_env.write_text("")
    env = {**ENV, "GITHUB_ENV": str(github_env)}
    guards = guard_run(config(), env=env, workspace=tmp_path, output_dir=out, **_run(state))
    record = out / "token-usage.jsonl"
    record.write_bytes(b'{"a":1}\n')
    guards.ledger.wrote(record, b'{"a":1}\n')
    with record.open("ab") as fh:
        fh.write(b'{"forged":1}\n')
    github_env.write_text("BASH_ENV=/tmp/x\n")
    guards.seal(state.journal)
    guards.seal(state.journal)
    assert github_env.read_text() == ""
    assert [d.subsystem for d in state.journal.degraded] == ["file-commands", "records"]
    assert (
        state.journal.degraded[1].detail
        == "tampered with: token-usage.jsonl: appended (13 bytes the harness did not write)"
    )


WIPE = r"""
import os, sys
from aw_action.harness.guards import guard_run, harden_process
from aw_action.run.config import RunConfig
from aw_action.run.state import RunState
from pathlib import Path
if sys.argv[1] == "entry":
    harden_process()
state = RunState.for_model("faux/scripted")
cfg = RunConfig.model_validate({"engine": {"model": "faux/scripted"}})
out = Path(sys.argv[2])
guards = guard_run(cfg, env=dict(os.environ), workspace=out, output_dir=out, record=state.record, journal=state.journal)
guards.wipe([])
from aw_action.security.confinement.process_guard import is_dumpable
print(open("/proc/self/environ", "rb").read().decode(errors="replace"))
print("DUMPABLE", is_dumpable())
print("PYTHON-SEES", os.environ["ANTHROPIC_API_KEY"])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux")
@pytest.mark.parametrize("mode", ["entry", "in-process"])
def test_the_initial_environment_is_wiped_only_in_an_entry_point_process(tmp_path: Path, mode: str) -> None:
    env = {**ENV, "PYTHONPATH": str(REPO), "KEEP_ME": "visible-setting"}
    proc = subprocess.run(
        [sys.executable, "-c", WIPE, mode, str(tmp_path)], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    environ, python_sees = proc.stdout.rsplit("PYTHON-SEES ", 1)
    environ, dumpable = environ.rsplit("DUMPABLE ", 1)
    assert dumpable.strip() == str(mode != "entry"), "an entry point makes the process non-dumpable"
    assert python_sees.strip() == ENV["ANTHROPIC_API_KEY"], "os.environ keeps its copy for the SDKs"
    assert "KEEP_ME=visible-setting" in environ and "PATH=/usr/bin:/bin" in environ
    for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN"):
        assert (ENV[name] in environ) is (mode != "entry"), name


def test_a_workspace_the_tools_user_cannot_reach_keeps_tools_as_root(tmp_path: Path, tool_user: ToolIdentity) -> None:
    """pytest's tmp_path lies under a 0700 folder: the user could not even start bash there."""
    ws = tmp_path / "ws"
    ws.mkdir()
    os.chown(ws, tool_user.uid, tool_user.gid)
    state = RunState.for_model("faux/scripted")
    (tmp_path / "out").mkdir()
    env = {**ENV, "GITHUB_ACTIONS": "true"}  # on a runner, where tools left as root are warned
    guards = guard_run(config(), env=env, workspace=ws, output_dir=tmp_path / "out", **_run(state))
    assert guards.identity is None and not guards.decision.protected
    assert "cannot reach" in guards.decision.reason and any("cannot reach" in w for w in state.journal.warnings)


def test_a_credentials_file_in_the_workspace_is_kept_from_the_tools_until_the_seal(
    user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    """google-github-actions/auth writes the file into the workspace, the runner user's, 0640:
    the tools (that user) could read the ID-token request token in it."""
    creds = user_dir / "gha-creds-0123456789abcdef.json"
    creds.write_text('{"type": "external_account"}')
    os.chown(creds, tool_user.uid, tool_user.gid)
    creds.chmod(0o640)
    state = RunState.for_model("faux/scripted")
    out = shared_tmp / "out"
    out.mkdir()
    env = {**ENV, "GOOGLE_APPLICATION_CREDENTIALS": str(creds)}
    guards = guard_run(config(), env=env, workspace=user_dir, output_dir=out, **_run(state))
    as_agent = {"user": tool_user.uid, "group": tool_user.gid, "extra_groups": []}

    def agent_reads() -> bool:
        cat = subprocess.run(["cat", str(creds)], capture_output=True, **as_agent)  # type: ignore[call-overload]
        return bool(cat.returncode == 0)

    assert guards.decision.protected
    assert (creds.stat().st_uid, oct(creds.stat().st_mode)[-3:]) == (0, "600")
    assert not agent_reads()
    guards.seal(state.journal)
    assert (creds.stat().st_uid, creds.stat().st_gid, oct(creds.stat().st_mode)[-3:]) == (
        tool_user.uid,
        tool_user.gid,
        "640",
    )
    assert agent_reads() and state.journal.warnings == []


def test_a_credentials_file_within_the_tools_reach_is_said(tmp_path: Path) -> None:
    state = RunState.for_model("faux/scripted")
    (tmp_path / "out").mkdir()
    creds = tmp_path / "adc.json"
    creds.write_text("{}")
    env = {**ENV, "GOOGLE_APPLICATION_CREDENTIALS": str(creds)}
    guards = guard_run(config(), env=env, workspace=tmp_path, output_dir=tmp_path / "out", **_run(state))
    if guards.decision.protected:
        pytest.skip("this machine has an 'aw-agent' user: a root-owned workspace is protected here")
    assert f"credentials file {creds} is within the tools' reach" in " ".join(state.journal.warnings)
