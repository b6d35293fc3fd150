"""Issue 29, item 6: paths from the runner.

google-github-actions/auth exports ``GOOGLE_APPLICATION_CREDENTIALS`` as the runner host's path
(``/home/runner/work/<repo>/<repo>/gha-creds-*.json``), which a container action sees under
``/github/workspace``. The action maps it to the container's path, so provider setup reads the
file and the guards withhold it from the tools (the tools' user cannot read it during the run);
a credentials path that cannot be opened while its variable is set fails the run before any
command, naming the variable, never a warning while the file stays readable.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.github.action_inputs import ActionInputs
from aw_action.github.paths import container_credential_files, container_path
from aw_action.github.plan import harness_env
from aw_action.harness.guards import guard_run
from aw_action.run.config import RunConfig
from aw_action.run.state import RunState
from aw_action.security.confinement.identity import ToolIdentity

HOST = "/home/runner/work/repo/repo"
RUNNER = {"GITHUB_WORKSPACE": "/github/workspace", "RUNNER_WORKSPACE": "/home/runner/work/repo"}


def test_the_runner_hosts_workspace_and_temp_paths_map_to_the_containers() -> None:
    ws = Path("/github/workspace")
    env = {**RUNNER, "RUNNER_TEMP": "/github/runner_temp"}
    assert container_path(f"{HOST}/gha-creds-1.json", RunnerFacts.read(env), ws) == ws / "gha-creds-1.json"
    assert container_path("/home/runner/work/_temp/creds.json", RunnerFacts.read(env), ws) == Path(
        "/github/runner_temp/creds.json"
    )
    assert container_path("/elsewhere/creds.json", RunnerFacts.read(env), ws) == Path("/elsewhere/creds.json")
    assert container_path(f"{HOST}/x.json", RunnerFacts.read({**env, "GITHUB_WORKSPACE": HOST}), ws) == Path(
        f"{HOST}/x.json"
    ), "on the host itself (the CLI, gh-aw's step) nothing is mapped"
    named = {**env, "GOOGLE_APPLICATION_CREDENTIALS": f"{HOST}/gha-creds-1.json"}
    mapped = container_credential_files(named, RunnerFacts.read(named), ws)
    assert mapped == {"GOOGLE_APPLICATION_CREDENTIALS": "/github/workspace/gha-creds-1.json"}


CONFIG = RunConfig.model_validate({"engine": {"model": "faux/scripted"}})


def test_the_host_path_credential_is_mapped_and_withheld_from_the_tools(
    user_dir: Path, shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    creds = user_dir / "gha-creds-0123456789abcdef.json"
    creds.write_text('{"type": "external_account", "credential_source": {"headers": {"Authorization": "Bearer x"}}}')
    os.chown(creds, tool_user.uid, tool_user.gid)
    creds.chmod(0o640)
    env = {**RUNNER, "PATH": "/usr/bin:/bin", "GOOGLE_APPLICATION_CREDENTIALS": f"{HOST}/{creds.name}"}
    out = shared_tmp / "out"
    out.mkdir()
    run_env = harness_env(ActionInputs.model_validate({}), env, out, user_dir)
    assert run_env["GOOGLE_APPLICATION_CREDENTIALS"] == str(creds), "the container's path"
    state = RunState.for_model("faux/scripted")
    guards = guard_run(
        CONFIG, env=run_env, workspace=user_dir, output_dir=out, record=state.record, journal=state.journal
    )
    cat = subprocess.run(
        ["cat", str(creds)], capture_output=True, user=tool_user.uid, group=tool_user.gid, extra_groups=[]
    )
    assert cat.returncode != 0, "the tools' user cannot read the credentials file during the run"
    assert not [w for w in state.journal.warnings if "credentials file" in w]
    guards.seal(state.journal)
    assert oct(creds.stat().st_mode)[-3:] == "640" and creds.stat().st_uid == tool_user.uid


def test_a_credentials_path_that_cannot_be_opened_fails_naming_the_variable(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    state = RunState.for_model("faux/scripted")
    env = {"PATH": "/usr/bin:/bin", "GOOGLE_APPLICATION_CREDENTIALS": f"{HOST}/gha-creds-gone.json"}
    with pytest.raises(InvocationError, match=r"GOOGLE_APPLICATION_CREDENTIALS=.*cannot open") as caught:
        guard_run(
            CONFIG, env=env, workspace=tmp_path, output_dir=tmp_path / "out", record=state.record, journal=state.journal
        )
    assert caught.value.exit_code == 2
