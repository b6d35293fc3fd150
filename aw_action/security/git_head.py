"""The commit a workspace has checked out, asked of git the safe way (``git_safe``): the replay
record names it, so a person can check the same commit out before replaying the run.

Git runs as the harness, with every program the repository could name shut off and the
workspace named as a safe directory (the tools' user may own it while the run goes). Anything
that goes wrong (no git, not a repository, no commit yet, too slow) is ``None``: a recording
without a commit is still a recording.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from aw_action.security import spawn
from aw_action.security.git_safe import harness_argv, harness_env

TIMEOUT_S = 10.0
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


def head_commit(workspace: Path, env: Mapping[str, str]) -> str | None:
    """``HEAD``'s commit id in ``workspace``, or None."""
    argv = harness_argv(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], safe_directory=str(workspace))
    try:
        done = spawn.run(argv, spawn.Launch(env=harness_env(env, LC_ALL="C"), cwd=workspace), timeout_s=TIMEOUT_S)
    except OSError:
        return None
    commit = done.stdout.decode("ascii", "replace").strip()
    return commit if done.returncode == 0 and not done.timed_out and _COMMIT.match(commit) else None
