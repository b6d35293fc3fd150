"""The ``edit`` tool: exact, unique text replacements in one file (Pi's multi-edit ``edit``).

Contract: every ``edits[i].oldText`` is matched against the ORIGINAL file (not after earlier
edits), must occur exactly once, must not be empty and must not overlap another edit; the call
as a whole must change something. Any violation fails the whole call and leaves the file
untouched. Matching is exact (no fuzzy fallback) on a view of the file with its BOM removed and
line endings normalised to ``\\n``; the write restores the BOM and the file's line ending (that
of its first line break), so a CRLF file stays CRLF. A file with mixed line endings is
rewritten with the first one throughout, as Pi does.

Error texts follow Pi: the single-edit wording when the call has one edit, and the
``edits[i]`` wording otherwise, so the model learns which edit failed.

Bounded: only a regular file of at most ``MAX_EDIT_BYTES`` is edited (a FIFO, device or socket
is refused at once, ``fs.py``); the read stops at the cap whatever the file claims.
"""

from __future__ import annotations

import asyncio
import difflib
import itertools
import json
import os
import re
from pathlib import Path
from typing import Any

from aw_action.agent.tools import ToolError, ToolInvocation, ToolResult
from aw_action.lazy_dataclass import dataclass
from aw_action.security.confinement.identity import ToolIdentity
from aw_action.security.confinement.sandbox import Confinement
from aw_action.tools.fs import open_for_read, open_for_write, refuse_if_read_only, write_all
from aw_action.tools.read import resolve_path
from aw_action.tools.truncate import format_size
from aw_action.tools.write import path_lock

DIFF_CONTEXT_LINES = 4
MAX_EDIT_BYTES = 4 * 1024 * 1024
"""Larger files are refused: an edit holds the file, its edited copy and a diff in memory."""
_BOM = "\ufeff"

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
        "edits": {
            "type": "array",
            "description": (
                "One or more targeted replacements. Each edit is matched against the original file, "
                "not incrementally. Do not include overlapping or nested edits. If two changes touch "
                "the same block or nearby lines, merge them into one edit instead."
            ),
            "items": {
                "type": "object",
                "properties": {
                    "oldText": {
                        "type": "string",
                        "description": (
                            "Exact text for one targeted replacement. It must be unique in the original "
                            "file and must not overlap with any other edits[].oldText in the same call."
                        ),
                    },
                    "newText": {"type": "string", "description": "Replacement text for this targeted edit."},
                },
                "required": ["oldText", "newText"],
            },
        },
    },
    # ``edits`` is not required so that the legacy ``{path, oldText, newText}`` form passes schema
    # validation; ``execute`` rejects a call that ends up with no edit at all.
    "required": ["path"],
}


@dataclass(frozen=True)
class Edit:
    old_text: str
    new_text: str


def prepare_edit_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """Normalise the argument shapes models send into ``{path, edits: [...]}``.

    Accepts ``edits`` given as a JSON string, and the legacy top-level ``oldText``/``newText``
    (appended as one more edit). Returns a new dict; anything it cannot fix is left as is.
    """
    out = dict(args)
    edits = out.get("edits")
    if isinstance(edits, str):
        try:
            parsed = json.loads(edits)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            out["edits"] = parsed
    old, new = out.pop("oldText", None), out.pop("newText", None)
    if isinstance(old, str) and isinstance(new, str):
        current = out.get("edits")
        out["edits"] = [*(current if isinstance(current, list) else []), {"oldText": old, "newText": new}]
    return out


def _parse_edits(args: dict[str, Any]) -> list[Edit]:
    raw = args.get("edits")
    if not isinstance(raw, list) or not raw:
        raise ToolError("Edit tool input is invalid. edits must contain at least one replacement.")
    edits: list[Edit] = []
    for i, item in enumerate(raw):
        if not (
            isinstance(item, dict) and isinstance(item.get("oldText"), str) and isinstance(item.get("newText"), str)
        ):
            raise ToolError(
                f"Edit tool input is invalid. edits[{i}] must be an object with string oldText and newText."
            )
        edits.append(Edit(item["oldText"], item["newText"]))
    return edits


def normalize_to_lf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def detect_line_ending(text: str) -> str:
    """``\\r\\n`` when the first line break is CRLF, else ``\\n``."""
    lf = text.find("\n")
    return "\r\n" if lf > 0 and text[lf - 1] == "\r" else "\n"


def apply_edits(content: str, edits: list[Edit], path: str) -> str:
    """Apply ``edits`` to LF-normalised ``content``; raise ``ToolError`` on any contract breach."""
    many = len(edits) > 1
    matches: list[tuple[int, int, int, str]] = []  # (start, end, edit index, new text)
    for i, edit in enumerate(edits):
        old, new = normalize_to_lf(edit.old_text), normalize_to_lf(edit.new_text)
        if not old:
            raise ToolError(
                f"edits[{i}].oldText must not be empty in {path}." if many else f"oldText must not be empty in {path}."
            )
        count = content.count(old)
        if count == 0:
            what = f"Could not find edits[{i}] in {path}." if many else f"Could not find the exact text in {path}."
            raise ToolError(f"{what} The old text must match exactly including all whitespace and newlines.")
        if count > 1:
            if many:
                raise ToolError(
                    f"Found {count} occurrences of edits[{i}] in {path}. Each oldText must be unique. "
                    "Please provide more context to make it unique."
                )
            raise ToolError(
                f"Found {count} occurrences of the text in {path}. The text must be unique. "
                "Please provide more context to make it unique."
            )
        start = content.index(old)
        matches.append((start, start + len(old), i, new))

    matches.sort()
    for (_, prev_end, prev_i, _), (start, _, i, _) in itertools.pairwise(matches):
        if prev_end > start:
            raise ToolError(
                f"edits[{prev_i}] and edits[{i}] overlap in {path}. "
                "Merge them into one edit or target disjoint regions."
            )

    result = content
    for start, end, _, new in reversed(matches):
        result = result[:start] + new + result[end:]
    if result == content:
        if many:
            raise ToolError(f"No changes made to {path}. The replacements produced identical content.")
        raise ToolError(
            f"No changes made to {path}. The replacement produced identical content. This might indicate "
            "an issue with special characters or the text not existing as expected."
        )
    return result


def _lines(text: str) -> list[str]:
    return re.findall(r"[^\n]*\n|[^\n]+", text)


def unified_diff(path: str, old: str, new: str, context: int = DIFF_CONTEXT_LINES) -> str:
    """A standard unified diff (``--- path`` / ``+++ path``) of two LF-normalised texts."""
    out: list[str] = []
    for line in difflib.unified_diff(_lines(old), _lines(new), path, path, n=context):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def first_changed_line(old: str, new: str) -> int:
    """1-based number, in ``new``, of the first line that differs from ``old``."""
    a, b = _lines(old), _lines(new)
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i + 1
    return min(len(a), len(b)) + 1


class EditTool:
    """Replace exact text blocks in a UTF-8 file under ``ctx.cwd``; see the module contract."""

    name = "edit"
    description = (
        "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, "
        "non-overlapping region of the original file. If two changes affect the same block or nearby "
        "lines, merge them into one edit instead of emitting overlapping edits. Do not include large "
        "unchanged regions just to connect distant changes."
    )

    @property
    def parameters(self) -> dict[str, Any]:
        return _PARAMETERS

    prepare_arguments = staticmethod(prepare_edit_arguments)

    async def execute(self, call: ToolInvocation) -> ToolResult:
        call.ensure_running()
        args, ctx = call.args, call.ctx
        args = prepare_edit_arguments(args)
        path: str = args["path"]
        edits = _parse_edits(args)
        refuse_if_read_only(ctx.file_confinement, "edit")
        absolute = resolve_path(path, ctx.cwd)
        async with path_lock(absolute):
            diff, first = await asyncio.to_thread(_edit_file, path, absolute, edits, ctx.identity, ctx.file_confinement)
        return ToolResult.text(
            f"Successfully replaced {len(edits)} block(s) in {path}.", diff=diff, first_changed_line=first
        )


def _load(path: str, absolute: Path, identity: ToolIdentity | None, confinement: Confinement | None) -> bytes:
    """The file's bytes; refused when it is not a regular file or over ``MAX_EDIT_BYTES``
    (never more than the cap is read, whatever the file claims its size is)."""
    fd = open_for_read(absolute, path, identity, confinement)
    try:
        if os.fstat(fd).st_size > MAX_EDIT_BYTES:
            raise _too_large(path)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, 1024 * 1024):
            size += len(chunk)
            if size > MAX_EDIT_BYTES:
                raise _too_large(path)
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise ToolError(f"Could not edit file: {path}. {exc.strerror or exc}.") from None
    finally:
        os.close(fd)


def _too_large(path: str) -> ToolError:
    return ToolError(
        f"Could not edit file: {path}. It is larger than {format_size(MAX_EDIT_BYTES)}; "
        "edit it with bash (sed, patch) instead."
    )


def _edit_file(
    path: str,
    absolute: Path,
    edits: list[Edit],
    identity: ToolIdentity | None = None,
    confinement: Confinement | None = None,
) -> tuple[str, int]:
    raw = _load(path, absolute, identity, confinement)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"Could not edit file: {path}. It is not valid UTF-8 text.") from None

    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom) :]
    ending = detect_line_ending(body)
    base = normalize_to_lf(body)
    updated = apply_edits(base, edits, path)
    final = updated.replace("\n", "\r\n") if ending == "\r\n" else updated
    fd = open_for_write(absolute, path, identity, confinement)
    try:
        write_all(fd, (bom + final).encode("utf-8", "replace"))
    except OSError as exc:
        raise ToolError(f"Could not edit file: {path}. {exc.strerror or exc}.") from None
    finally:
        os.close(fd)
    return unified_diff(path, base, updated), first_changed_line(base, updated)
