"""Apply a recorded patch to the base commit's files, in a scratch repository, to learn the new
file contents: the apply job then uploads them through the git data API.

Only the files the patch touches are fetched (through ``fetch_blob``) and each is checked
against the hash the base tree names. ``git apply --cached`` works on the scratch index alone: the
untrusted patch never touches a working tree, and git itself refuses paths that climb out.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath

from aw_action.lazy_dataclass import dataclass
from aw_action.safe_outputs.patch import PatchError, git, git_env

GITLINK = "160000"
MAX_FILE_BYTES = 100 * 1024 * 1024
"""GitHub refuses larger files; a small binary patch can inflate to far more (a zlib bomb)."""


@dataclass(frozen=True)
class FileChange:
    """``content`` is ``None`` for a deletion."""

    path: str
    mode: str
    content: bytes | None


def touched_paths(patch: bytes, cwd: Path, env: Mapping[str, str]) -> list[str]:
    """Every path the patch names (``git apply --numstat -z``; a rename names both)."""
    fields = git(["apply", "--numstat", "-z", "-"], cwd, env, stdin=patch).split(b"\0")
    paths: list[str] = []
    i = 0
    while i < len(fields):
        entry = fields[i]
        if not entry:
            i += 1
            continue
        parts = entry.split(b"\t", 2)
        if len(parts) == 3 and parts[2]:
            paths.append(parts[2].decode("utf-8", "surrogateescape"))
            i += 1
        else:  # a rename: "added\tdeleted\t" then source and destination
            paths.extend(p.decode("utf-8", "surrogateescape") for p in fields[i + 1 : i + 3])
            i += 3
    for path in paths:
        segments = PurePosixPath(path).parts
        if not segments or path.startswith("/") or ".." in segments or ".git" in segments:
            raise PatchError(f"the patch names a path it may not touch: {path!r}")
    return list(dict.fromkeys(paths))


def _index(cwd: Path, env: Mapping[str, str]) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for entry in git(["ls-files", "-s", "-z"], cwd, env).split(b"\0"):
        if entry:
            meta, _, path = entry.partition(b"\t")
            mode, sha, _stage = meta.decode().split(" ")
            out[path.decode("utf-8", "surrogateescape")] = (mode, sha)
    return out


def apply_patch(
    patch: bytes, base: Mapping[str, tuple[str, str]], fetch_blob: Callable[[str], bytes]
) -> list[FileChange]:
    """The files that differ from ``base`` (path -> (mode, blob sha)) after the patch."""
    env = git_env(os.environ)
    with tempfile.TemporaryDirectory(prefix="aw-apply-") as tmp:
        cwd = Path(tmp)
        git(["init", "-q"], cwd, env)
        paths = touched_paths(patch, cwd, env)
        index_info = b""
        for path in paths:
            if path not in base:
                continue
            mode, sha = base[path]
            if mode == GITLINK:
                raise PatchError(f"the patch changes submodule {path!r}, which is not supported")
            stored = git(["hash-object", "-w", "--stdin"], cwd, env, stdin=fetch_blob(sha)).decode().strip()
            if stored != sha:
                raise PatchError(f"the base content of {path!r} does not match its hash {sha}")
            index_info += f"{mode} {sha}\t".encode() + path.encode("utf-8", "surrogateescape") + b"\0"
        if index_info:
            git(["update-index", "-z", "--index-info"], cwd, env, stdin=index_info)
        try:
            git(["apply", "--cached", "--binary", "-"], cwd, env, stdin=patch)
        except PatchError as exc:
            raise PatchError(f"the patch does not apply to the base commit: {exc}") from None
        after = _index(cwd, env)
        changes: list[FileChange] = []
        for path in paths:
            old, new = base.get(path), after.get(path)
            if new is None:
                if old is not None:
                    changes.append(FileChange(path, old[0], None))
            elif new != old:
                if new[0] == GITLINK:
                    raise PatchError(f"the patch adds submodule {path!r}, which is not supported")
                size = int(git(["cat-file", "-s", new[1]], cwd, env))
                if size > MAX_FILE_BYTES:
                    raise PatchError(f"the patch makes {path!r} {size:,} bytes, over GitHub's 100 MiB file limit")
                changes.append(FileChange(path, new[0], git(["cat-file", "blob", new[1]], cwd, env)))
        return changes
