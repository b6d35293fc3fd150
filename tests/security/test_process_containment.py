"""Processes that outlive a call (issue 29): the CLI as root, tools as an unprivileged user owning
the workspace (as a runner's checkout is uid 1001's), the scripted model as the hostile agent.

The fork chain is judged by what lands in ``GITHUB_ENV`` after the run, not by how it is stopped.
Every attack is bounded: the chain ends itself after ``CHAIN_S`` and holds at most a few
processes; the fork bomb runs under the run's process budget (``RLIMIT_NPROC``)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from aw_action.security.confinement.containment import uid_tasks
from aw_action.security.confinement.identity import ToolIdentity
from tests.conftest import CliRun, base_env, run_cli, write_run_files

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processes and /proc are Linux")
CHAIN_S = 12
CHAIN = """
import os, time
path, started = {env!r}, time.time()
os.setsid()
for _ in range(3):  # four chains
    if os.fork():
        break
n = 0
while True:
    if os.fork():
        os._exit(0)
    n += 1
    if n % 500 == 0:
        if time.time() - started > {seconds}:
            os._exit(0)
        with open(path, "a") as fh:
            fh.write("BASH_ENV=/tmp/evil.sh\\n")
"""


def own_user(name: str) -> ToolIdentity:
    """A user of this test's own: ``kill(-1)`` as the tools' user reaches every process of the uid,
    so tests sharing ``aw-test-agent`` in parallel would see each other's processes as strangers."""
    import pwd
    import shutil
    import subprocess

    if not sys.platform.startswith("linux") or os.geteuid() != 0 or shutil.which("useradd") is None:
        pytest.skip("needs root and useradd to switch the tools to a user of the test's own")
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        useradd = ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/bin/sh", name]
        subprocess.run(useradd, check=False, capture_output=True)
        entry = pwd.getpwnam(name)
    return ToolIdentity(uid=entry.pw_uid, gid=entry.pw_gid, name=entry.pw_name, home="/tmp")


def owned_workspace(shared_tmp: Path, user: ToolIdentity) -> Path:
    work = shared_tmp / "user-owned"
    work.mkdir()
    os.chown(work, user.uid, user.gid)
    return work


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]}


def file_commands(folder: Path, owner: ToolIdentity) -> dict[str, str]:
    """The runner's file commands, owned by the runner's uid (the tools' user), as mounted."""
    folder.mkdir()
    env = {}
    for name in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT"):
        path = folder / name.lower()
        path.write_text("")
        os.chown(path, owner.uid, owner.gid)
        env[name] = str(path)
    os.chown(folder, owner.uid, owner.gid)
    return env


def run(tmp_path: Path, workspace: Path, env: dict[str, str], turns: list[dict[str, Any]], **harness: Any) -> CliRun:
    config = {"engine": {"model": "faux/scripted"}, "harness": harness}
    cfg, prompt = write_run_files(tmp_path, config, script=[*turns, {"text": "done"}])
    summary = tmp_path / "summary.md"
    summary.write_text("")
    environ = base_env(tmp_path, GITHUB_WORKSPACE=str(workspace), GITHUB_STEP_SUMMARY=str(summary), **env)
    return run_cli(["--config", str(cfg), "--prompt", str(prompt)], environ, cwd=workspace, timeout=120)


def live(identity: ToolIdentity) -> list[str]:
    return [f"{t.pid} {t.name}" for t in uid_tasks(identity.uid) if t.state != "Z"]


def test_a_fork_chain_writes_nothing_to_github_env_after_the_run(tmp_path: Path, shared_tmp: Path) -> None:
    tool_user = own_user("aw-test-chain")
    user_dir = owned_workspace(shared_tmp, tool_user)
    env = file_commands(shared_tmp / "fc", tool_user)
    chain = CHAIN.format(env=env["GITHUB_ENV"], seconds=CHAIN_S)
    (user_dir / "chain.py").write_text(chain)
    turns = [bash("python3 chain.py </dev/null >/dev/null 2>&1 & sleep 1; echo started")]
    done = run(tmp_path, user_dir, env, turns)
    assert done.returncode == 0, done.stderr[-3000:]
    time.sleep(2)  # a surviving link would append within milliseconds
    assert Path(env["GITHUB_ENV"]).read_text() == "", "the chain wrote GITHUB_ENV after the harness restored it"
    assert live(tool_user) == []
    (ended,) = done.events_named("processes")
    assert ended["method"] == "kill-uid" and ended["left"] == []
    assert "all ended at once" in (tmp_path / "summary.md").read_text()


def test_a_fork_bomb_meets_the_process_budget_and_the_run_still_ends_whole(tmp_path: Path, shared_tmp: Path) -> None:
    tool_user = own_user("aw-test-bomb")
    user_dir = owned_workspace(shared_tmp, tool_user)
    env = file_commands(shared_tmp / "fc", tool_user)
    os.chmod(env["GITHUB_OUTPUT"], 0o644)
    bomb = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    for _ in range(2000):\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(60)\n"
        "            os._exit(0)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print('forked', n, 'then', exc)\n"
    )
    (user_dir / "bomb.py").write_text(bomb)
    command = f"echo BASH_ENV=/tmp/x >> {env['GITHUB_ENV']}; chmod 000 {env['GITHUB_OUTPUT']}; python3 bomb.py"
    done = run(tmp_path, user_dir, env, [bash(command)], **{"process-budget": 40})
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "completed"
    lines = [json.loads(line) for line in (done.output_dir / "session.jsonl").read_text().splitlines()]
    results = [r["message"] for r in lines if r.get("type") == "message" and r["message"]["role"] == "toolResult"]
    text = results[0]["content"][0]["text"]
    assert "Resource temporarily unavailable" in text
    forked = int(text.split("forked ")[1].split()[0])
    assert forked < 40, "the budget bounded the bomb"
    assert "process budget" in text, "one line of the harness says the budget was reached"
    assert Path(env["GITHUB_ENV"]).read_text() == ""
    assert os.stat(env["GITHUB_OUTPUT"]).st_mode & 0o7777 == 0o644
    assert live(tool_user) == []
    (ended,) = done.events_named("processes")
    assert ended["method"] == "kill-uid" and ended["left"] == [] and ended["process_limit"] >= 40
    summary = (tmp_path / "summary.md").read_text()
    assert "GITHUB_ENV" in summary and "GITHUB_OUTPUT" in summary
    assert "at most 40 more tasks" in summary


HARNESS = r"""
import json, os, sys
from aw_action.security.confinement.containment import end_agent_processes, plan
from aw_action.security.confinement.identity import ToolIdentity
identity = ToolIdentity(int(sys.argv[1]), int(sys.argv[2]), "agent", "/tmp")
containment = plan(identity, 16)
print(containment.method, flush=True)
sys.stdin.readline()  # the test starts a stranger here, or not
ending = end_agent_processes(containment, identity)
print(json.dumps({"planned": containment.method, "method": ending.method, "note": ending.note}))
"""


def _harness(tool_user: ToolIdentity, stranger_after_plan: bool) -> tuple[dict[str, str], int]:
    """HARNESS as a process of its own: (its report, the stranger's pid), the stranger started by
    this test (never a descendant of that harness) before the plan or between plan and end."""
    import subprocess

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(["sleep", "30"], user=tool_user.uid, group=tool_user.gid, extra_groups=[])

    stranger = None if stranger_after_plan else start()
    harness = subprocess.Popen(
        [sys.executable, "-c", HARNESS, str(tool_user.uid), str(tool_user.gid)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )  # fmt: skip
    try:
        assert harness.stdout is not None and harness.stdin is not None
        harness.stdout.readline()
        stranger = stranger or start()
        out, err = harness.communicate("go\n", timeout=60)
        assert harness.returncode == 0, err
        assert stranger.poll() is None, "the stranger lives"
        return json.loads(out), stranger.pid
    finally:
        harness.kill()
        if stranger is not None:
            stranger.kill()
            stranger.wait()


def test_a_process_of_the_same_uid_the_run_did_not_start_is_never_killed() -> None:
    """kill(-1) as the tools' user would reach every process of that uid: when one that does not
    descend from the harness appears after the plan, the kill helper does not send it, and the end
    says it was best effort."""
    report, stranger = _harness(own_user("aw-test-stranger"), stranger_after_plan=True)
    assert report["planned"] == "kill-uid" and report["method"] == "best-effort"
    assert f"pid {stranger}" in report["note"] and "did not start" in report["note"]


def test_a_uid_that_already_runs_others_processes_never_gets_kill_minus_one() -> None:
    """The runner-side action (docs/toolchain.md): a harness made root by sudo would give the tools
    the workspace owner's uid, the runner's own, which runs the runner and the step's parents: a uid
    with a process the run did not start when the run plans is not the tools' own, and kill(-1) is
    not even planned."""
    report, stranger = _harness(own_user("aw-test-busy"), stranger_after_plan=False)
    assert report["planned"] == "best-effort" and report["method"] == "best-effort"
    assert f"pid {stranger}" in report["note"] and "not a uid of the tools' own" in report["note"]


def test_where_the_tools_run_as_root_the_run_says_containment_is_best_effort(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    import pwd

    from aw_action.security.confinement.identity import AGENT_USER

    if os.geteuid() != 0 or AGENT_USER in {p.pw_name for p in pwd.getpwall()}:
        pytest.skip(f"the tools run as root only when the harness does and there is no {AGENT_USER} user")
    done = run(tmp_path, workspace, {}, [bash("echo hi")])
    assert done.returncode == 0, done.stderr[-3000:]
    (ended,) = done.events_named("processes")
    assert ended["method"] == "best-effort" and ended["left"] == []
    summary = (tmp_path / "summary.md").read_text()
    assert "best effort" in summary


def test_the_plan_counts_the_uid_s_tasks_and_names_what_is_left() -> None:
    """The limit is the uid's tasks at the start plus the budget; root tools have no bound and a
    best-effort end; a live process of the uid under the harness is named by ``left_behind``."""
    import subprocess

    from aw_action.security.confinement.containment import left_behind, plan

    user = own_user("aw-test-plan")
    sleeper = subprocess.Popen(["sleep", "30"], user=user.uid, group=user.gid, extra_groups=[])
    try:
        ours = plan(user, 10)
        assert (ours.method, ours.limit) == ("kill-uid", 11), ours
        assert "kill(-1) as uid" in ours.describe() and "at most 10 more tasks" in ours.describe()
        assert left_behind(user.uid) == (f"{sleeper.pid} (sleep)",)
    finally:
        sleeper.kill()
        sleeper.wait()
    assert left_behind(user.uid) == ()
    root = plan(None, 10)
    assert (root.method, root.limit) == ("best-effort", 0)
    assert "best effort (the tools run as root)" in root.describe() and "no process bound" in root.describe()
