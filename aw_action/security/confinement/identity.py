"""Who the agent's tools run as: the one decision that puts the harness's /proc out of reach.

Rules of ``decide_tool_identity`` (the harness calls it once, before any tool runs):

1. Not Linux, or the harness is not root: tools run as the harness's own user (it cannot switch).
   Non-dumpable (``process_guard``) is then what protects the harness's /proc entries.
2. Root, and the workspace belongs to another user (GitHub's runners check out as uid 1001):
   tools run as that uid, so files the agent creates stay owned by the runner's user after the
   job. The group is the workspace's, unless that group is a *privileged* one (gid 0, or the
   group owning the Docker socket: on GitHub-hosted runners the runner's primary group is
   ``docker``, and ``/var/run/docker.sock`` is mounted into the container): then ``nogroup``.
3. Root, and the workspace is root's: tools run as the image's unprivileged user
   (``AGENT_USER``, created by the Dockerfile). The workspace is then handed over
   (``hand_over_workspace``) for the agent to be able to edit it, and given back to its owners
   when the run ends (``HandedOver.give_back``): a later step that runs git as root would
   otherwise refuse the checkout ("dubious ownership").
4. Root, root's workspace, and no such user: tools run as root, with a reason that says so; the
   caller should report it (the credentials in the harness's /proc are then within reach).
5. A user that cannot search every folder above the workspace (a checkout under root's 0700
   home) is not switched to (``reachable``): tools run as root, and the reason says why.

Tools never keep root's supplementary groups (``extra_groups=[]``).
"""

from __future__ import annotations

import os
import pwd
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aw_action.lazy_dataclass import dataclass

AGENT_USER = "aw-agent"
"""The unprivileged user the image names for tools when the workspace is root's."""
DOCKER_SOCKETS = ("/var/run/docker.sock", "/run/docker.sock")
NOGROUP = 65534


@dataclass(frozen=True)
class ToolIdentity:
    """A user the harness (as root) switches to when it starts a tool's process."""

    uid: int
    gid: int
    name: str
    home: str

    def popen_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``subprocess.Popen`` / ``asyncio.create_subprocess_exec``."""
        return {"user": self.uid, "group": self.gid, "extra_groups": []}

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """``env`` with ``HOME``, ``USER`` and ``LOGNAME`` naming this user."""
        return {**env, "HOME": self.home, "USER": self.name, "LOGNAME": self.name}


@dataclass(frozen=True)
class IdentityDecision:
    identity: ToolIdentity | None
    """``None``: tools run as the harness's own user."""
    reason: str
    hand_over_workspace: bool = False
    """True when the workspace is root's and must be given to ``identity`` to be editable."""
    protected: bool = False
    """True when tools run as a different uid than the harness (its /proc is out of reach)."""


SECRET_HOLDER_UID = 65534
"""``nobody``: the user a process runs as when it holds secrets the agent must not read (an MCP
server given variables): the agent's user can read ``/proc/<pid>/environ`` of its own processes,
not of another user's."""


def secret_holder(tools: ToolIdentity | None) -> ToolIdentity | None:
    """A user other than the tools' for such a process, when the harness switches users at all
    (``tools`` is not ``None``: it is root), else ``None`` (the caller then says the agent can
    read what the process holds). ``nobody``, never the tools' own uid."""
    if tools is None or tools.uid == SECRET_HOLDER_UID:
        return None
    return ToolIdentity(SECRET_HOLDER_UID, NOGROUP, _name_for(SECRET_HOLDER_UID), "/nonexistent")


def privileged_gids(sockets: tuple[str, ...] = DOCKER_SOCKETS) -> set[int]:
    """Groups a tool must never hold: root's, and every Docker socket's."""
    gids = {0}
    for sock in sockets:
        try:
            gids.add(os.stat(sock).st_gid)
        except OSError:
            continue
    return gids


def _home_for(uid: int, env_home: str | None, fallback: str) -> str:
    """The user's passwd home; else ``env_home`` when that user owns it; else ``fallback``."""
    try:
        return pwd.getpwuid(uid).pw_dir
    except KeyError:
        pass
    if env_home:
        try:
            if os.stat(env_home).st_uid == uid:
                return env_home
        except OSError:
            pass
    return fallback


def _name_for(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def decide_tool_identity(
    workspace: Path,
    *,
    env_home: str | None = None,
    agent_user: str = AGENT_USER,
    euid: int | None = None,
    privileged: set[int] | None = None,
    getpwnam: Callable[[str], pwd.struct_passwd] = pwd.getpwnam,
) -> IdentityDecision:
    """Apply the module's rules. ``euid``/``privileged``/``getpwnam`` exist for tests."""
    euid = os.geteuid() if euid is None else euid
    if not sys.platform.startswith("linux"):
        return IdentityDecision(None, f"not Linux ({sys.platform}): tools run as the harness's user")
    if euid != 0:
        return IdentityDecision(None, f"the harness runs as uid {euid}, not root: tools run as the same user")
    try:
        st = workspace.stat()
    except OSError as exc:
        return IdentityDecision(None, f"workspace {workspace} cannot be inspected ({exc.strerror}): tools run as root")
    bad_groups = privileged_gids() if privileged is None else privileged
    if st.st_uid != 0:
        gid = NOGROUP if st.st_gid in bad_groups else st.st_gid
        identity = ToolIdentity(st.st_uid, gid, _name_for(st.st_uid), _home_for(st.st_uid, env_home, "/tmp"))
        why = f"the workspace belongs to uid {st.st_uid}: tools run as uid {st.st_uid}, gid {gid}"
        return IdentityDecision(identity, why, protected=True)
    try:
        entry = getpwnam(agent_user)
    except KeyError:
        return IdentityDecision(
            None, f"the workspace is root's and the image has no user '{agent_user}': tools run as root (unprotected)"
        )
    gid = NOGROUP if entry.pw_gid in bad_groups else entry.pw_gid
    identity = ToolIdentity(entry.pw_uid, gid, entry.pw_name, entry.pw_dir or "/tmp")
    why = f"the workspace is root's: tools run as '{agent_user}' (uid {entry.pw_uid}); the workspace is handed over"
    return IdentityDecision(identity, why, hand_over_workspace=True, protected=True)


def _can_traverse(path: Path, identity: ToolIdentity) -> bool:
    """Whether ``identity`` may search every folder above ``path`` (a workspace under root's
    0700 home is out of its reach: switching to it would leave bash without a working dir)."""
    for parent in path.resolve().parents:
        try:
            st = parent.stat()
        except OSError:
            return False
        bit = 0o100 if st.st_uid == identity.uid else 0o010 if st.st_gid == identity.gid else 0o001
        if not st.st_mode & bit:
            return False
    return True


def reachable(decision: IdentityDecision, workspace: Path) -> IdentityDecision:
    """``decision``, or tools as this process's user when its user cannot reach ``workspace``."""
    identity = decision.identity
    if identity is None or _can_traverse(workspace, identity):
        return decision
    closed = "a folder above it is closed"
    why = f"{decision.reason}; but uid {identity.uid} cannot reach {workspace} ({closed}): tools run as root"
    return IdentityDecision(None, why)


@dataclass
class HandedOver:
    """A workspace handed to the tools' user, and who owned what before."""

    workspace: Path
    identity: ToolIdentity
    owner: tuple[int, int]
    """The workspace's own (uid, gid) before: what every entry the agent created gets back."""
    others: dict[str, tuple[int, int]]
    """Entries that had another owner than ``owner`` (usually none)."""
    changed: int
    """How many entries changed owner."""

    def give_back(self) -> int:
        """Return every entry the tools' user owns to its owner before the run (a new one to the
        workspace's owner); symlinks are re-owned, never followed. Call it when no agent process
        is left. Returns how many entries changed owner."""
        changed = 0
        for path in _entries(self.workspace):
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if st.st_uid == self.identity.uid:
                os.lchown(path, *self.others.get(path, self.owner))
                changed += 1
        return changed


def _entries(workspace: Path) -> list[str]:
    """Every entry under ``workspace`` (itself last), without following symlinks."""
    out = [os.path.join(root, name) for root, dirs, files in os.walk(workspace) for name in [*dirs, *files]]
    return [*out, str(workspace)]


def hand_over_workspace(workspace: Path, identity: ToolIdentity) -> HandedOver:
    """Give every entry under ``workspace`` (itself included) to ``identity``; symlinks are
    re-owned, never followed.

    Only for rule 3: a root-owned workspace (a root runner, a job container) that the agent must
    edit; ``give_back`` undoes it when the run ends.
    """
    st = os.lstat(workspace)
    owner = (st.st_uid, st.st_gid)
    others: dict[str, tuple[int, int]] = {}
    entries = _entries(workspace)
    for path in entries:
        before = os.lstat(path)
        if (before.st_uid, before.st_gid) != owner:
            others[path] = (before.st_uid, before.st_gid)
        os.lchown(path, identity.uid, identity.gid)
    return HandedOver(workspace, identity, owner, others, len(entries))
