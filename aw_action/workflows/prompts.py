"""Step prompts: reading prompt files safely, checking and filling ``{{variables}}``, and the
contract text that tells the model how to finish a step.

Templating is one pass of literal substitution: a value (a summary, the user's input) that
itself contains ``{{workflow.input}}`` is inserted as text, never expanded again.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

VARIABLES = frozenset(
    {
        "workflow.input",
        "workflow.id",
        "run.id",
        "step.id",
        "step.title",
        "last.summary",
        "gate.feedback",
        "gate.artifact",
        "reviewed.artifact",
        "reviewed.feedback",
    }
)
"""pi-workflows' variables. ``gate.artifact`` is the artifact a reviewer last sent back,
``reviewed.*`` the last approved artifact and the approver's note (used by its v2 examples)."""

MAX_PROMPT_FILE_BYTES = 256 * 1024
_PLACEHOLDER = re.compile(r"\{\{([^{}]*)\}\}")


class PromptFileError(ValueError):
    """A ``prompt: {file}`` that escapes the workflow's folder or is not a readable text file."""


def unknown_variables(text: str) -> list[tuple[int, str]]:
    """(1-based line, name) of every ``{{name}}`` that is not a known variable."""
    found = []
    for match in _PLACEHOLDER.finditer(text):
        name = match.group(1).strip()
        if name not in VARIABLES:
            found.append((text.count("\n", 0, match.start()) + 1, name))
    return found


def render(template: str, values: Mapping[str, str]) -> str:
    """Fill every ``{{name}}`` from ``values`` in one pass (values are never re-scanned)."""

    def fill(match: re.Match[str]) -> str:
        return values[match.group(1).strip()]

    return _PLACEHOLDER.sub(fill, template)


def read_prompt_file(root: Path, relative: str) -> str:
    """The text of ``relative`` inside the folder ``root``.

    Refuses absolute paths, ``..`` escapes and symlinks that resolve outside ``root``, anything
    but a regular file (a FIFO would block), files over ``MAX_PROMPT_FILE_BYTES`` and text that
    is not UTF-8."""
    if os.path.isabs(relative) or "\0" in relative or relative.startswith("\\"):
        raise PromptFileError("must be a relative path inside the workflow's folder")
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, relative))
    if os.path.commonpath([real_root, target]) != real_root:
        raise PromptFileError(f"{relative!r} resolves outside the workflow's folder")
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        raise PromptFileError(f"{relative!r}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PromptFileError(f"{relative!r} is not a regular file")
        if info.st_size > MAX_PROMPT_FILE_BYTES:
            raise PromptFileError(f"{relative!r} is larger than {MAX_PROMPT_FILE_BYTES // 1024} KiB")
        data = os.read(fd, MAX_PROMPT_FILE_BYTES + 1)
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PromptFileError(f"{relative!r} is not UTF-8 text (byte {exc.start})") from None
    if not text.strip():
        raise PromptFileError(f"{relative!r} is empty")
    return text


def step_contract(
    step_id: str, title: str, outcomes: Sequence[str], submit_outcome: str | None, summary_max_chars: int
) -> str:
    """The closing instructions appended to every step prompt."""
    lines = [
        "",
        "---",
        f"Workflow step: {step_id} ({title}).",
        f"When the step is finished, call workflow_complete_step with one of these outcomes: {', '.join(outcomes)}.",
        f"Give a summary (at most {summary_max_chars} characters) that the next step will receive as its handoff.",
        "workflow_complete_step must be the only tool call in its message; after it, end your turn.",
    ]
    if submit_outcome:
        lines.append(
            f"Outcome {submit_outcome!r} submits the full content in 'artifact' for human review; the run then "
            "pauses until a person approves it or requests changes."
        )
    return "\n".join(lines)
