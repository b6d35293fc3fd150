"""Where a review comment may sit: a pull request's diff as GitHub's API reports it.

"In the diff" means the pull request's files as ``GET /repos/{o}/{r}/pulls/{n}/files`` lists them
for the head commit, each with its unified-diff ``patch`` (none for a binary file or one too
large to show), never the local checkout. GitHub takes a comment on a line of a hunk: ``RIGHT``
for an added or unchanged line (new file's numbering), ``LEFT`` for a removed or unchanged line
(old file's numbering); a range ``start_line..line`` must lie within one hunk, on one side. A
renamed file is commented on under its new path.

``check`` returns why a comment cannot go on the diff, in words the agent can act on, or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from aw_action.lazy_dataclass import dataclass

SIDES = ("LEFT", "RIGHT")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class ReviewComment:
    """One comment of a review: the record's line in ``safe-outputs.jsonl`` and where it goes."""

    record_line: int
    path: str
    line: int
    side: str
    body: str
    start_line: int | None = None

    def api(self) -> dict[str, Any]:
        """The comment as ``POST /pulls/{n}/reviews`` takes it (``comments[]``)."""
        out: dict[str, Any] = {"path": self.path, "line": self.line, "side": self.side, "body": self.body}
        if self.start_line is not None and self.start_line != self.line:
            out.update(start_line=self.start_line, start_side=self.side)
        return out


@dataclass(frozen=True)
class Hunk:
    left: frozenset[int]
    """Old-file line numbers a LEFT comment may name (removed and unchanged lines)."""
    right: frozenset[int]
    """New-file line numbers a RIGHT comment may name (added and unchanged lines)."""
    removed: frozenset[int] = frozenset()
    """Old-file line numbers of the removed lines (the ``-`` lines)."""

    def side(self, side: str) -> frozenset[int]:
        return self.left if side == "LEFT" else self.right


@dataclass(frozen=True)
class FileDiff:
    """One entry of ``GET /pulls/{n}/files``: ``hunks`` is None when GitHub gave no patch."""

    path: str
    status: str = "modified"
    previous_path: str | None = None
    hunks: tuple[Hunk, ...] | None = None


def parse_patch(patch: str) -> tuple[Hunk, ...]:
    """The hunks of a file's ``patch`` (hunks only, as the API gives them)."""
    hunks: list[Hunk] = []
    left: set[int] = set()
    right: set[int] = set()
    removed: set[int] = set()
    old = new = 0
    started = False
    for raw in patch.split("\n"):
        match = _HUNK.match(raw)
        if match:
            if started:
                hunks.append(Hunk(frozenset(left), frozenset(right), frozenset(removed)))
            left, right, removed, started = set(), set(), set(), True
            old, new = int(match.group(1)), int(match.group(3))
            continue
        if not started or raw.startswith("\\"):  # "\ No newline at end of file"
            continue
        if raw.startswith("+"):
            right.add(new)
            new += 1
        elif raw.startswith("-"):
            left.add(old)
            removed.add(old)
            old += 1
        elif raw.startswith(" "):  # unchanged (an empty unchanged line is a lone space)
            left.add(old)
            right.add(new)
            old, new = old + 1, new + 1
    if started:
        hunks.append(Hunk(frozenset(left), frozenset(right), frozenset(removed)))
    return tuple(hunks)


def ranges(numbers: Iterable[int], limit: int = 12) -> str:
    """``1-4, 9, 12-13`` (the first ``limit`` runs)."""
    runs: list[list[int]] = []
    for n in sorted(numbers):
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:limit])
    return text + (", ..." if len(runs) > limit else "") if text else "none"


def _where(diff: FileDiff, side: str) -> str:
    hunks = diff.hunks or ()
    return ranges(n for h in hunks for n in h.side(side))


def check(files: Mapping[str, FileDiff], comment: ReviewComment) -> str | None:
    """Why ``comment`` cannot sit on this diff, or None when it can."""
    diff = files.get(comment.path)
    if diff is None:
        renamed = [f.path for f in files.values() if f.previous_path == comment.path]
        if renamed:
            return f"path: {comment.path} was renamed to {renamed[0]} in this pull request; use the new path"
        changed = ", ".join(sorted(files)[:20]) or "none"
        return f"path: {comment.path} is not changed in this pull request (changed files: {changed})"
    if diff.hunks is None:
        return (
            f"path: {comment.path} has no diff GitHub can show (binary or too large), so no line of it "
            "takes a comment; say it in the review body instead"
        )
    first = comment.start_line if comment.start_line is not None else comment.line
    wanted = set(range(first, comment.line + 1))
    if any(wanted <= h.side(comment.side) for h in diff.hunks):
        return None
    span = f"lines {first}-{comment.line}" if first != comment.line else f"line {comment.line}"
    hint = ""
    on_side = [n for n in (first, comment.line) if any(n in h.side(comment.side) for h in diff.hunks)]
    if comment.side == "RIGHT" and any(wanted <= h.removed for h in diff.hunks):
        hint = (
            f"; {span} of the old file {'are removed lines' if len(wanted) > 1 else 'is a removed line'}: use side LEFT"
        )
    elif first != comment.line and len(on_side) == 2:
        hint = "; the range crosses hunks: start_line..line must lie within one hunk"
    return (
        f"{comment.path} {span} ({comment.side}) is not in the pull request's diff{hint}. "
        f"Lines you can comment on: RIGHT {_where(diff, 'RIGHT')}; LEFT {_where(diff, 'LEFT')}"
    )
