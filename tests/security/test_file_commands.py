"""GITHUB_ENV and friends: whatever the agent wrote is undone before the harness writes its own,
and no daemonised tool process survives to write after that."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.records.file_commands import FileCommandGuard

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux")


def file_commands(root: Path) -> dict[str, str]:
    root.mkdir(exist_ok=True)
    env = {}
    for name in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"):
        path = root / f"{name.lower()}_1234"
        path.write_text("")
        env[name] = str(path)
    return env


def test_lines_the_agent_added_are_removed_and_named(tmp_path: Path) -> None:
    env = file_commands(tmp_path / "fc")
    Path(env["GITHUB_OUTPUT"]).write_text("earlier=1\n")
    guard = FileCommandGuard.snapshot(env)
    with open(env["GITHUB_ENV"], "a") as fh:
        fh.write("BASH_ENV=/tmp/evil.sh\n")
    Path(env["GITHUB_PATH"]).unlink()
    Path(env["GITHUB_PATH"]).write_text("/tmp/evil-bin\n")
    Path(env["GITHUB_OUTPUT"]).write_text("earlier=1\nresult=forged\n")
    assert sorted(guard.restore()) == ["GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH"]
    assert Path(env["GITHUB_ENV"]).read_text() == ""
    assert Path(env["GITHUB_PATH"]).read_text() == ""
    assert Path(env["GITHUB_OUTPUT"]).read_text() == "earlier=1\n"
    assert guard.restore() == []


def test_a_symlink_planted_in_place_of_a_file_is_not_followed(tmp_path: Path) -> None:
    env = file_commands(tmp_path / "fc")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    guard = FileCommandGuard.snapshot(env)
    Path(env["GITHUB_ENV"]).unlink()
    Path(env["GITHUB_ENV"]).symlink_to(victim)
    assert guard.restore() == ["GITHUB_ENV"]
    assert not Path(env["GITHUB_ENV"]).is_symlink() and Path(env["GITHUB_ENV"]).read_text() == ""
    assert victim.read_text() == "keep me\n"


HARNESS = r"""
import json, os, subprocess, sys, time
from aw_action.security.records.file_commands import FileCommandGuard
from aw_action.tools.processes import enable_subreaper, kill_all_agent_processes

def descendants():
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2 :].split()
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {c for c, p in parents.items() if p in frontier and c not in found}
        found |= frontier
    return found

env = json.loads(sys.argv[1]); uid = int(sys.argv[2])
subreaper = enable_subreaper()
guard = FileCommandGuard.snapshot(env)
# the agent daemonises a writer that outlives its bash call, then exits
loop = "sleep 0.5; while true; do echo BASH_ENV=/tmp/x >> $GITHUB_ENV; sleep 0.1; done"
script = f'setsid sh -c "{loop}" >/dev/null 2>&1 &'
kw = {"user": uid, "extra_groups": []} if uid else {}
subprocess.run(["bash", "-c", script], env={"PATH": "/usr/bin:/bin", "GITHUB_ENV": env["GITHUB_ENV"]}, **kw)
time.sleep(1.0)
escaped = len(descendants())
killed = kill_all_agent_processes()
changed = guard.restore()
time.sleep(0.5)
print(json.dumps({"subreaper": subreaper, "escaped": escaped, "killed": killed, "changed": changed,
                  "after": open(env["GITHUB_ENV"]).read(), "left": len(descendants())}))
"""


def test_daemonised_writers_are_reaped_then_the_files_restored(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    folder = shared_tmp / "fc"
    env = file_commands(folder)
    for path in [folder, *folder.iterdir()]:
        os.chown(path, tool_user.uid, tool_user.gid)  # as on the runner: the runner's uid owns them
    proc = subprocess.run(
        [sys.executable, "-c", HARNESS, json.dumps(env), str(tool_user.uid)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["subreaper"] is True
    assert report["escaped"] >= 1, "the setsid writer re-parented to the harness, where it can be found"
    assert report["killed"] >= 1 and report["left"] == 0
    assert report["changed"] == ["GITHUB_ENV"]
    assert report["after"] == "", "nothing written after the restore"


def test_a_file_that_did_not_exist_is_not_a_change_and_one_the_agent_created_goes(tmp_path: Path) -> None:
    env = {"GITHUB_STEP_SUMMARY": str(tmp_path / "summary"), "GITHUB_ENV": str(tmp_path / "env")}
    guard = FileCommandGuard.snapshot(env)
    assert guard.restore() == []
    Path(env["GITHUB_ENV"]).write_text("BASH_ENV=/tmp/x\n")
    assert guard.restore() == ["GITHUB_ENV"]
    assert not Path(env["GITHUB_ENV"]).exists() and not Path(env["GITHUB_STEP_SUMMARY"]).exists()


def test_a_directory_planted_in_place_of_a_file_is_named_and_restore_does_not_raise(tmp_path: Path) -> None:
    env = file_commands(tmp_path / "fc")
    guard = FileCommandGuard.snapshot(env)
    Path(env["GITHUB_PATH"]).unlink()
    Path(env["GITHUB_PATH"]).mkdir()
    assert guard.restore() == ["GITHUB_PATH"]


def test_a_mode_the_agent_changed_is_restored_and_named(tmp_path: Path) -> None:
    env = file_commands(tmp_path / "fc")
    Path(env["GITHUB_OUTPUT"]).write_text("earlier=1\n")
    os.chmod(env["GITHUB_OUTPUT"], 0o644)
    os.chmod(env["GITHUB_PATH"], 0o644)
    guard = FileCommandGuard.snapshot(env)
    os.chmod(env["GITHUB_OUTPUT"], 0o000)  # the runner could no longer read the step's outputs
    os.chmod(env["GITHUB_PATH"], 0o777)
    assert sorted(guard.restore()) == ["GITHUB_OUTPUT", "GITHUB_PATH"]
    assert os.stat(env["GITHUB_OUTPUT"]).st_mode & 0o7777 == 0o644
    assert os.stat(env["GITHUB_PATH"]).st_mode & 0o7777 == 0o644
    assert Path(env["GITHUB_OUTPUT"]).read_text() == "earlier=1\n"
    assert guard.restore() == []
