"""Who tools run as: the decision rules, and handing a root-owned workspace over."""

from __future__ import annotations

import os
import pwd
from pathlib import Path

import pytest

from aw_action.security.confinement.identity import (
    NOGROUP,
    ToolIdentity,
    decide_tool_identity,
    hand_over_workspace,
    privileged_gids,
)
from tests.security.conftest import TEST_USER


def test_a_non_root_harness_keeps_its_own_user(tmp_path: Path) -> None:
    decision = decide_tool_identity(tmp_path, euid=1000)
    assert decision.identity is None
    assert not decision.protected
    assert "uid 1000, not root" in decision.reason


def test_root_with_a_runner_owned_workspace_runs_tools_as_the_workspace_owner(
    user_dir: Path, tool_user: ToolIdentity
) -> None:
    decision = decide_tool_identity(user_dir, privileged={0})
    assert decision.identity is not None
    assert (decision.identity.uid, decision.identity.gid) == (tool_user.uid, tool_user.gid)
    assert decision.protected and not decision.hand_over_workspace
    assert decision.identity.popen_kwargs() == {"user": tool_user.uid, "group": tool_user.gid, "extra_groups": []}


def test_the_docker_socket_group_is_never_given_to_tools(user_dir: Path, tool_user: ToolIdentity) -> None:
    """On GitHub-hosted runners the runner's primary group is ``docker``: the workspace's group
    would open /var/run/docker.sock (root on the host) to the agent."""
    sock = user_dir / "docker.sock"
    sock.write_text("")
    os.chown(sock, 0, tool_user.gid)
    assert tool_user.gid in privileged_gids((str(sock),))
    decision = decide_tool_identity(user_dir, privileged=privileged_gids((str(sock),)))
    assert decision.identity is not None
    assert decision.identity.uid == tool_user.uid
    assert decision.identity.gid == NOGROUP


def test_a_uid_without_passwd_entry_gets_its_number_and_a_home_it_owns(shared_tmp: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("chown to another uid needs root")
    uid = 54321
    with pytest.raises(KeyError):
        pwd.getpwuid(uid)
    work, home = shared_tmp / "ws", shared_tmp / "home"
    work.mkdir()
    home.mkdir()
    os.chown(work, uid, uid)
    os.chown(home, uid, uid)
    decision = decide_tool_identity(work, env_home=str(home), privileged={0})
    assert decision.identity == ToolIdentity(uid, uid, str(uid), str(home))
    env = decision.identity.environment({"HOME": "/github/home", "PATH": "/bin"})
    assert env == {"HOME": str(home), "USER": str(uid), "LOGNAME": str(uid), "PATH": "/bin"}


def test_a_root_owned_workspace_goes_to_the_image_user(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    work = shared_tmp / "ws"
    work.mkdir()
    decision = decide_tool_identity(work, agent_user=TEST_USER, privileged={0})
    assert decision.identity is not None and decision.identity.name == TEST_USER
    assert decision.hand_over_workspace and decision.protected


def test_no_image_user_means_root_tools_and_a_reason_that_says_unprotected(shared_tmp: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("the root rules need root")
    decision = decide_tool_identity(shared_tmp, agent_user="no-such-user-aw")
    assert decision.identity is None and not decision.protected
    assert "unprotected" in decision.reason


def test_hand_over_changes_owners_without_following_symlinks(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    work = shared_tmp / "ws"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("x = 1\n")
    outside = shared_tmp / "root-only.txt"
    outside.write_text("root's\n")
    (work / "link").symlink_to(outside)
    handed = hand_over_workspace(work, tool_user)
    assert handed.changed == 4
    for path in (work, work / "src", work / "src" / "a.py"):
        assert path.stat().st_uid == tool_user.uid
    assert (work / "link").lstat().st_uid == tool_user.uid
    assert outside.stat().st_uid == 0, "the symlink's target is not re-owned"


def test_give_back_returns_every_entry_to_its_owner_and_new_ones_to_the_workspaces(
    shared_tmp: Path, tool_user: ToolIdentity
) -> None:
    """A root runner's later steps run git as root: a checkout left to another uid is refused
    ("dubious ownership"), so the lent workspace goes back when the run ends."""
    work = shared_tmp / "ws"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("x = 1\n")
    (work / "odd.txt").write_text("someone else's\n")
    os.chown(work / "odd.txt", 4321, 4321)
    outside = shared_tmp / "root-only.txt"
    outside.write_text("root's\n")
    (work / "link").symlink_to(outside)
    handed = hand_over_workspace(work, tool_user)
    made = work / "src" / "made-by-agent.txt"  # the agent's file, as its user would create it
    made.write_text("new\n")
    os.chown(made, tool_user.uid, tool_user.gid)
    assert handed.give_back() == 6
    owners = {
        p.relative_to(shared_tmp).as_posix(): (p.lstat().st_uid, p.lstat().st_gid) for p in [work, *work.rglob("*")]
    }
    assert owners == {
        "ws": (0, 0),
        "ws/src": (0, 0),
        "ws/src/a.py": (0, 0),
        "ws/src/made-by-agent.txt": (0, 0),
        "ws/odd.txt": (4321, 4321),
        "ws/link": (0, 0),
    }
    assert outside.stat().st_uid == 0


def test_give_back_never_hands_root_a_set_user_id_file_of_the_agent(shared_tmp: Path, tool_user: ToolIdentity) -> None:
    """A hostile agent leaves a set-user-id program in the workspace, hoping the give-back makes
    it root's: the kernel clears the bits when root changes the owner (checked, not assumed)."""
    work = shared_tmp / "ws"
    work.mkdir()
    handed = hand_over_workspace(work, tool_user)
    trap = work / "trap"
    trap.write_text("#!/bin/sh\nid\n")
    os.chown(trap, tool_user.uid, tool_user.gid)
    os.chmod(trap, 0o6755)
    handed.give_back()
    st = trap.stat()
    assert (st.st_uid, st.st_mode & 0o6000) == (0, 0)
