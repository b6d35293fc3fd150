"""Capture the agent's working-tree changes as a binary-safe ``git format-patch`` file.

The user's branch, index and working tree are left exactly as they were: the changes (tracked,
staged and untracked files that ``.gitignore`` does not exclude) are staged into a *temporary*
index file, written as a tree, and committed with ``git commit-tree`` onto the base commit
without moving any ref. ``format-patch --binary --full-index --no-renames`` of that one commit
is the patch: an mbox ``git am`` applies, whose ``index`` lines carry full preimage hashes so the
apply job can check it applies to exactly the base it was made from.

The base is ``GITHUB_SHA`` when it is an ancestor of ``HEAD`` (so commits the agent made are
included), else ``HEAD``. The output dir is excluded when it lies inside the repository. The
patch file is named as gh-aw names it, ``aw-<branch>.patch``, next to the records.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_S = 120
IDENTITY = {
    "GIT_AUTHOR_NAME": "aw-harness",
    "GIT_AUTHOR_EMAIL": "aw-harness@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "aw-harness",
    "GIT_COMMITTER_EMAIL": "aw-harness@users.noreply.github.com",
}
SAFE_CONFIG = ("-c", "core.fsmonitor=false", "-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false")
_PATCH_NAME = re.compile(r"^aw-[a-z0-9._-]{1,120}\.patch$")


class PatchError(Exception):
    """Why no patch could be captured; the message is what the agent reads."""


@dataclass(frozen=True)
class CapturedPatch:
    path: Path
    base_commit: str
    size: int
    files: int


def patch_file_name(branch: str) -> str:
    """gh-aw's ``aw-<sanitised branch>.patch`` (``git_patch_utils.cjs``), restricted further to
    ``[a-z0-9._-]`` so no name can leave the folder."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", branch.lower())
    slug = re.sub(r"\.{2,}", ".", re.sub(r"-{2,}", "-", slug)).strip("-.") or "unknown"
    return f"aw-{slug[:120]}.patch"


def is_patch_file_name(name: str) -> bool:
    return bool(_PATCH_NAME.match(name)) and ".." not in name


def git_env(base: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without variables that would redirect git elsewhere."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env.update(IDENTITY, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


def git(args: list[str], cwd: Path, env: Mapping[str, str], *, stdin: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", *SAFE_CONFIG, *args],
            cwd=cwd,
            env=dict(env),
            input=stdin,
            capture_output=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError:
        raise PatchError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise PatchError(f"git {args[0]} took longer than {GIT_TIMEOUT_S} s") from None
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PatchError(f"git {args[0]} failed: {detail[-1] if detail else f'exit {done.returncode}'}")
    return done.stdout


def _text(args: list[str], cwd: Path, env: Mapping[str, str]) -> str:
    return git(args, cwd, env).decode("utf-8", "replace").strip()


def _base_commit(root: Path, env: Mapping[str, str], github_sha: str | None) -> str:
    head = _text(["rev-parse", "--verify", "HEAD^{commit}"], root, env)
    if github_sha and re.fullmatch(r"[0-9a-f]{40}", github_sha) and github_sha != head:
        try:
            git(["merge-base", "--is-ancestor", github_sha, head], root, env)
            return github_sha
        except PatchError:
            pass
    return head


def _worktree_tree(root: Path, env: Mapping[str, str], exclude: list[Path]) -> str:
    """The tree of the working tree as ``git add -A`` would stage it, built in a temporary index."""
    with tempfile.TemporaryDirectory(prefix="aw-patch-") as tmp:
        index = Path(tmp) / "index"
        real_index = root / _text(["rev-parse", "--git-path", "index"], root, env)
        if real_index.is_file():
            shutil.copyfile(real_index, index)  # stat data makes add -A fast; content is re-read
        tmp_env = {**env, "GIT_INDEX_FILE": str(index)}
        if not real_index.is_file():
            git(["read-tree", "HEAD"], root, tmp_env)
        spec = ["--", "."]
        for folder in exclude:
            try:
                spec.append(f":(exclude){folder.resolve().relative_to(root)}")
            except ValueError:
                continue  # outside the repository: nothing to exclude
        git(["add", "-A", *spec], root, tmp_env)
        return _text(["write-tree"], root, tmp_env)


def capture_patch(
    workspace: Path,
    target: Path,
    *,
    title: str,
    max_bytes: int,
    exclude: list[Path],
    env: Mapping[str, str] | None = None,
) -> CapturedPatch:
    """Write the patch to ``target`` (atomically) and describe it; ``PatchError`` when there is
    no repository, no change, or the patch is larger than ``max_bytes``."""
    base_env = os.environ if env is None else env
    genv = git_env(base_env)
    try:
        root = Path(_text(["rev-parse", "--show-toplevel"], workspace, genv))
    except PatchError:
        raise PatchError(f"{workspace} is not inside a git repository") from None
    base = _base_commit(root, genv, base_env.get("GITHUB_SHA"))
    tree = _worktree_tree(root, genv, exclude)
    if tree == _text(["rev-parse", f"{base}^{{tree}}"], root, genv):
        raise PatchError("no changes to propose: the working tree matches the base commit")
    commit = git(["commit-tree", tree, "-p", base, "-F", "-"], root, genv, stdin=title.encode()).decode().strip()
    patch = git(
        ["format-patch", "--stdout", "--binary", "--full-index", "--no-renames", "--no-signature", "-1", commit],
        root,
        genv,
    )
    if len(patch) > max_bytes:
        raise PatchError(
            f"the patch is {len(patch) // 1024:,} KiB, over the limit of {max_bytes // 1024:,} KiB "
            "(safe-outputs.max-patch-size); propose a smaller change"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".aw-patch.")
    with os.fdopen(fd, "wb") as handle:
        handle.write(patch)
    os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the artifact upload and later steps read it
    os.replace(tmp, target)
    files = len(re.findall(rb"^diff --git ", patch, flags=re.MULTILINE))
    return CapturedPatch(target, base, len(patch), files)
