"""Capture the agent's working-tree changes as a binary-safe ``git format-patch`` file.

The user's branch, index and working tree are left exactly as they were: the changes (tracked,
staged and untracked files that ``.gitignore`` does not exclude) are staged into the index of a
*private* git dir, written as a tree, and committed with ``git commit-tree`` onto the base commit
without moving any ref. ``format-patch --binary --full-index --no-renames`` of that one commit
is the patch: an mbox ``git am`` applies, whose ``index`` lines carry full preimage hashes so the
apply job can check it applies to exactly the base it was made from.

The repository is the agent's (its ``.git/config``, ``.gitattributes``, hooks), so no git here
runs anything it names (``security/confinement/git_safe.py``'s table):

- the commands that write (``read-tree``, ``add -A``, ``write-tree``, ``commit-tree``,
  ``format-patch``) run with ``GIT_DIR`` a fresh private dir (``git init --template=``) that
  borrows the repository's objects (``GIT_ALTERNATE_OBJECT_DIRECTORIES``) and reads none of its
  config: no filter, textconv, diff driver, fsmonitor, config hook or signing program is
  configured there; ``.git/info/exclude`` is still honoured (``core.excludesFile``);
- the commands on the repository itself (``rev-parse``, ``merge-base``) only read, with every
  ``-c`` override of the table;
- every git runs as the tools' user, with the tools' environment (``GIT_*`` dropped), through
  ``security/confinement/spawn.py`` inside the kernel sandbox: writable only in the private dir, no TCP.
  Whatever the agent still managed to make run gets nothing it does not already have. The
  harness itself never opens a path inside the repository or the private dir (the agent's
  processes share that user); it only reads git's output and removes the dir.

Not honoured therefore: the repository's ``core.autocrlf``/``core.eol``, LFS or any other
filter (an LFS file is proposed with its content, not its pointer), ``core.excludesFile`` of the
repository's config. The base is ``GITHUB_SHA`` when it is an ancestor of ``HEAD`` (so commits
the agent made are included), else ``HEAD``. The output dir is excluded when it lies inside the
repository. The patch file is named as gh-aw names it, ``aw-<branch>.patch``, next to the records.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from aw_action.environment.runner import RunnerFacts
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement import spawn
from aw_action.security.confinement.git_safe import harness_argv, harness_env
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement, probe
from aw_action.security.records.record_guard import RecordWrites, write_record

GIT_TIMEOUT_S = 120
IDENTITY = {
    "GIT_AUTHOR_NAME": "aw-harness",
    "GIT_AUTHOR_EMAIL": "aw-harness@users.noreply.github.com",
    "GIT_COMMITTER_NAME": "aw-harness",
    "GIT_COMMITTER_EMAIL": "aw-harness@users.noreply.github.com",
}
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
    """The caller's environment without anything that redirects git or makes it run a program
    (``git_safe.harness_env``), with the commit's author and committer."""
    return harness_env(base, **IDENTITY, LC_ALL="C")


def git(args: list[str], cwd: Path, env: Mapping[str, str], *, stdin: bytes | None = None) -> bytes:
    """Git in a scratch repository of the harness's own (the apply job's, ``apply_outputs``):
    every program the table names shut off, writable only in ``cwd``, no TCP."""
    confinement = Confinement("workspace-write", tcp=False, writable=(str(cwd),), abi=_kernel_abi(env))
    return _run(harness_argv(args), spawn.Launch(env=env, cwd=cwd, confinement=confinement), args[0], stdin)


def _kernel_abi(env: Mapping[str, str]) -> int:
    try:
        return probe(env).landlock_abi
    except ValueError as exc:  # a malformed AW_SANDBOX_ABI_LIMIT: said, never a traceback
        raise PatchError(str(exc)) from None


def _run(argv: list[str], launch: spawn.Launch, name: str, stdin: bytes | None, stdout: int | None = None) -> bytes:
    try:
        done = spawn.run(argv, launch, input=stdin, timeout_s=GIT_TIMEOUT_S, stdout=stdout if stdout else spawn.PIPE)
    except FileNotFoundError:
        raise PatchError("git is not installed") from None
    if done.timed_out:
        raise PatchError(f"git {name} took longer than {GIT_TIMEOUT_S} s")
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PatchError(f"git {name} failed: {detail[-1] if detail else f'exit {done.returncode}'}")
    return done.stdout


@dataclass
class _Git:
    """Git as the tools' user, in the sandbox; ``private`` is the private git dir's folder."""

    identity: ToolIdentity | None
    env: dict[str, str]
    abi: int
    private: Path

    @property
    def git_dir(self) -> Path:
        return self.private / "repo" / ".git"

    def run(
        self,
        args: list[str],
        cwd: Path,
        *,
        private: bool,
        stdin: bytes | None = None,
        stdout: int | None = None,
        config: tuple[tuple[str, str], ...] = (),
    ) -> bytes:
        """``args`` on the repository at ``cwd`` (``private`` False: its config overridden) or
        in the private git dir with ``cwd`` as the work tree. Either way the only folder this git
        may write is the private one's."""
        env = {**self.env, "GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(cwd)} if private else self.env
        writable = (str(self.private),)
        confinement = Confinement(
            "workspace-write", tcp=False, writable=writable, abi=self.abi, source="the patch's git"
        )
        launch = spawn.Launch(env=env, cwd=cwd, identity=self.identity, confinement=confinement)
        return _run(harness_argv(args, safe_directory="*", extra=config), launch, args[0], stdin, stdout)

    def text(self, args: list[str], cwd: Path, *, private: bool = False) -> str:
        return self.run(args, cwd, private=private).decode("utf-8", "replace").strip()


@contextmanager
def _private_dir(identity: ToolIdentity | None) -> Iterator[Path]:
    """A fresh folder for the private git dir, the tools' user's (removed afterwards without
    following any link the agent may have planted in it)."""
    path = Path(tempfile.mkdtemp(prefix="aw-patch-", dir="/tmp" if os.path.isdir("/tmp") else None))
    try:
        if identity is not None:
            os.chown(path, identity.uid, identity.gid)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _base_commit(git: _Git, root: Path, github_sha: str | None) -> str:
    head = git.text(["rev-parse", "--verify", "HEAD^{commit}"], root)
    if github_sha and re.fullmatch(r"[0-9a-f]{40}", github_sha) and github_sha != head:
        try:
            git.run(["merge-base", "--is-ancestor", github_sha, head], root, private=False)
            return github_sha
        except PatchError:
            pass
    return head


def _worktree_tree(git: _Git, root: Path, base: str, exclude: list[Path]) -> str:
    """The tree of the working tree as ``git add -A`` would stage it onto ``base``, built in the
    private git dir."""
    objects = git.text(["rev-parse", "--path-format=absolute", "--git-path", "objects"], root)
    info_exclude = git.text(["rev-parse", "--path-format=absolute", "--git-path", "info/exclude"], root)
    object_format = git.text(["rev-parse", "--show-object-format"], root)
    init = ["init", "-q", "--template=", f"--object-format={object_format}", str(git.private / "repo")]
    git.run(init, git.private, private=False)
    git.env = {**git.env, "GIT_ALTERNATE_OBJECT_DIRECTORIES": objects}
    git.run(["read-tree", base], root, private=True)
    spec = ["--", "."]
    for folder in exclude:
        try:
            spec.append(f":(exclude){folder.resolve().relative_to(root)}")
        except ValueError:
            continue  # outside the repository: nothing to exclude
    git.run(["add", "-A", *spec], root, private=True, config=(("core.excludesFile", info_exclude),))
    return git.text(["write-tree"], root, private=True)


def capture_patch(
    workspace: Path,
    target: Path,
    *,
    title: str,
    max_bytes: int,
    exclude: list[Path],
    env: Mapping[str, str] | None = None,
    identity: ToolIdentity | None = None,
    abi: int | None = None,
    records: RecordWrites | None = None,
) -> CapturedPatch:
    """Write the patch to ``target`` (atomically, through the held output dir when ``records``
    is the run's ledger) and describe it; ``PatchError`` when there is
    no repository, no change, or the patch is larger than ``max_bytes``. Git runs as
    ``identity`` (the tools' user; ``None``: this process's user) with ``env`` (the tools'
    environment), confined with Landlock up to ``abi`` (``None``: what the kernel offers)."""
    base_env = os.environ if env is None else env
    with _private_dir(identity) as private:
        git = _Git(identity, git_env(base_env), _kernel_abi(base_env) if abi is None else abi, private)
        try:
            root = Path(git.text(["rev-parse", "--show-toplevel"], workspace))
        except PatchError as exc:
            raise PatchError(f"{workspace} is not inside a git repository ({exc})") from None
        base = _base_commit(git, root, RunnerFacts.read(base_env).sha or None)
        tree = _worktree_tree(git, root, base, exclude)
        if tree == git.text(["rev-parse", f"{base}^{{tree}}"], root, private=True):
            raise PatchError("no changes to propose: the working tree matches the base commit")
        commit_args = ["commit-tree", "--no-gpg-sign", tree, "-p", base, "-F", "-"]
        commit = git.run(commit_args, root, private=True, stdin=title.encode()).decode().strip()
        fmt = ["format-patch", "--stdout", "--binary", "--full-index", "--no-renames", "--no-signature"]
        args = [*fmt, "--no-ext-diff", "--no-textconv", "-1", commit]
        return _write_patch(git, root, args, target, base, max_bytes, records)


def _write_patch(
    git: _Git, root: Path, args: list[str], target: Path, base: str, max_bytes: int, records: RecordWrites | None
) -> CapturedPatch:
    """Run format-patch into an anonymous scratch file of the harness's own, check its size, then
    write it into place as a record (``write_record``: never through a path the agent may have
    swapped since the run started)."""
    with tempfile.TemporaryFile() as scratch:
        git.run(args, root, private=True, stdout=scratch.fileno())
        size = os.fstat(scratch.fileno()).st_size
        if size > max_bytes:
            raise PatchError(
                f"the patch is {size // 1024:,} KiB, over the limit of {max_bytes // 1024:,} KiB "
                "(safe-outputs.max-patch-size); propose a smaller change"
            )
        scratch.seek(0)
        data = scratch.read()
    files = sum(1 for line in data.splitlines() if line.startswith(b"diff --git "))
    write_record(target, data, records, 0o644)  # the artifact upload and later steps read it
    return CapturedPatch(target, base, size, files)
