"""A real pull request for the review tests: a git repository with a base and a head commit
(additions, deletions, a renamed and edited file, a binary file, a deleted file), and its files
as ``GET /pulls/{n}/files`` reports them, derived from ``git diff`` the way GitHub does: one
entry per file with ``filename`` (the new path), ``status``, ``previous_filename`` for a rename,
and ``patch`` (the hunks, without the ``diff --git``/``---``/``+++`` header), none for binaries."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]

APP_BASE = "".join(f"line {i}\n" for i in range(1, 21))
# head: line 3 removed, two lines added after line 10, line 18 changed
APP_HEAD = (
    "".join(f"line {i}\n" for i in (1, 2, 4, 5, 6, 7, 8, 9, 10))
    + "added A\nadded B\n"
    + "".join(f"line {i}\n" for i in range(11, 18))
    + "line 18 changed\nline 19\nline 20\n"
)
HELPER_BASE = "".join(f"def helper_{i}():\n    return {i}\n" for i in range(1, 11))
HELPER_HEAD = HELPER_BASE.replace("    return 5\n", "    return 50\n")


@dataclass
class PullFixture:
    repo: Path
    base: str
    head: str
    files: list[dict[str, Any]]

    def show(self, commit: str, path: str) -> list[str]:
        out = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=self.repo, capture_output=True, check=True)
        return out.stdout.decode().splitlines()


def _git(repo: Path, *args: str) -> str:
    return subprocess.run([*GIT, *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def api_files(repo: Path, base: str, head: str) -> list[dict[str, Any]]:
    """``git diff -M base head`` split per file into the API's entries."""
    diff = subprocess.run(
        ["git", "diff", "-M", "--no-color", "--no-ext-diff", base, head], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    files: list[dict[str, Any]] = []
    for chunk in diff.split("diff --git ")[1:]:
        lines = chunk.split("\n")
        entry: dict[str, Any] = {"status": "modified"}
        a, b = lines[0].split(" b/", 1)
        entry["filename"] = b
        old = a.removeprefix("a/")
        hunks_at = next((i for i, line in enumerate(lines) if line.startswith("@@")), None)
        for line in lines[: hunks_at if hunks_at is not None else len(lines)]:
            if line.startswith("rename to "):
                entry.update(status="renamed", previous_filename=old, filename=line.removeprefix("rename to "))
            elif line.startswith("new file mode"):
                entry["status"] = "added"
            elif line.startswith("deleted file mode"):
                entry["status"] = "removed"
        if hunks_at is not None:
            entry["patch"] = "\n".join(lines[hunks_at:]).rstrip("\n")
        files.append(entry)
    return files


def build(root: Path) -> PullFixture:
    repo = root / "pr-repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "app.txt").write_text(APP_BASE)
    (repo / "old_helpers.py").write_text(HELPER_BASE)
    (repo / "logo.bin").write_bytes(bytes(range(256)) * 4)
    (repo / "gone.txt").write_text("to be deleted\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD").strip()
    (repo / "app.txt").write_text(APP_HEAD)
    _git(repo, "mv", "old_helpers.py", "helpers.py")
    (repo / "helpers.py").write_text(HELPER_HEAD)
    (repo / "logo.bin").write_bytes(bytes(reversed(range(256))) * 4)
    (repo / "gone.txt").unlink()
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "head")
    head = _git(repo, "rev-parse", "HEAD").strip()
    return PullFixture(repo, base, head, api_files(repo, base, head))
