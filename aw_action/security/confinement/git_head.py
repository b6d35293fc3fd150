"""Git asked about the workspace by the harness, the one confined way, and the commit it has
checked out (the replay record names it, so a person can check the same commit out before
replaying the run).

``workspace_git`` is how the harness reads a repository the agent or a pull request controls
(the fork check, the replay record): every program the repository could name is shut off
(``git_safe``), and git runs as the user the tools run as, with nothing but a system ``PATH``,
``HOME=/nonexistent`` and ``LANG``, read-only and without TCP in the kernel sandbox. Anything
that goes wrong (no git, not a repository, too slow, a malformed ABI cap) is ``None``.
"""

from __future__ import annotations

import os
import re
import threading
from pathlib import Path

from aw_action.security.confinement import spawn
from aw_action.security.confinement.git_safe import harness_argv, harness_env
from aw_action.security.confinement.identity import decide_tool_identity, reachable
from aw_action.security.confinement.sandbox import Confinement, probe

TIMEOUT_S = 10.0
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
"""Where git is looked up: never a folder of the harness's ``PATH`` the workspace could plant."""
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def workspace_git(
    workspace: Path,
    *args: str,
    purpose: str,
    timeout_s: float = TIMEOUT_S,
    started: spawn.Started | None = None,
) -> bytes | None:
    """``git args`` on ``workspace``'s repository, confined; its stdout, or None when it fails.
    ``started``: told git's process once it runs (``spawn.run``)."""
    try:
        abi = probe(os.environ).landlock_abi
    except ValueError:  # a malformed cap: the run refuses it, naming it; read nothing now
        return None
    env = harness_env({"PATH": SYSTEM_PATH, "HOME": "/nonexistent", "LANG": "C", "LC_ALL": "C"})
    confinement = Confinement("read-only", tcp=False, abi=abi, source=purpose)
    identity = reachable(decide_tool_identity(workspace), workspace).identity
    launch = spawn.Launch(env=env, cwd=workspace, identity=identity, confinement=confinement)
    try:
        done = spawn.run(harness_argv(list(args), safe_directory="*"), launch, timeout_s=timeout_s, started=started)
    except OSError:
        return None
    return done.stdout if done.returncode == 0 and not done.timed_out else None


def head_commit(workspace: Path, started: spawn.Started | None = None) -> str | None:
    """``HEAD``'s commit id in ``workspace``, or None."""
    args = ("rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    out = workspace_git(workspace, *args, purpose="the replay record", started=started)
    commit = (out or b"").decode("ascii", "replace").strip()
    return commit if _COMMIT.match(commit) else None


class HeadCommitQuery:
    """``head_commit`` asked on a thread as the run starts, so git (~13 ms: its sandbox and its
    start) runs while the SDK imports instead of on the way to the first request; ``answer`` waits
    for it (at most git's ``TIMEOUT_S``, as a run that asked in line did). A run that ends without
    reading it calls ``cancel``: git's session is killed, none outlives the run (a repository's
    ``HEAD`` can be a FIFO git waits on)."""

    def __init__(self, workspace: Path) -> None:
        self._answer: list[str | None] = []
        self._failure: list[BaseException] = []
        self._git: list[spawn.Running] = []
        self._cancelled = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._ask, args=(workspace,), name="aw-git-head")
        try:
            self._thread.start()
        except RuntimeError:  # no thread to be had (the process's task limit): asked in line
            self._ask(workspace)

    def _ask(self, workspace: Path) -> None:
        with self._lock:
            if self._cancelled:
                return
        try:
            self._answer.append(head_commit(workspace, started=self._started))
        except Exception as failed:  # raised again where the answer is read, as it was in line
            self._failure.append(failed)

    def _started(self, git: spawn.Running) -> None:
        with self._lock:
            self._git.append(git)
            if self._cancelled:  # cancelled while git was being started
                spawn.kill_session(git)

    def answer(self) -> str | None:
        """``HEAD``'s commit id when the query was made, or None; what ``head_commit`` raised."""
        if self._thread.ident is not None:
            self._thread.join()
        if self._failure:
            raise self._failure[0]
        return self._answer[0] if self._answer else None

    def cancel(self) -> None:
        """Kill git's session if it runs (or once it starts), and wait for the thread (it ends
        once git does)."""
        with self._lock:
            self._cancelled = True
            for git in self._git:
                spawn.kill_session(git)
        if self._thread.ident is not None:
            self._thread.join()
