"""A tool result compared with the recorded one, with what varies between runs taken out.

Each side is normalised with its own run's values: the literal values its header names
(``varies``: the workspace, output dir and temp dir paths, the session and run ids) become
``<name>``, then each pattern the recording names (``replay_format.VARYING_PATTERNS``: times,
durations, the bash spill log's random name) becomes ``<pattern>``. A result is compared as
``rendered`` shows it: whether it is an error, its details (exit code, truncation, ...), then
its text. A difference is a unified diff of the two renderings, at most ``MAX_DIFF_LINES`` lines.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Mapping

from aw_action.ai.types import ToolResultMessage
from aw_action.sinks.replay_format import MIN_VARYING_CHARS, VARYING_PATTERNS

MAX_DIFF_LINES = 200


class Normaliser:
    """Rewrites one run's varying values and patterns as placeholders."""

    def __init__(self, varies: Mapping[str, str], patterns: Iterable[str]) -> None:
        literals = [(value, name) for name, value in varies.items() if len(value) >= MIN_VARYING_CHARS]
        self._literals = sorted(literals, key=lambda pair: -len(pair[0]))
        self._patterns = [(name, VARYING_PATTERNS[name]) for name in patterns if name in VARYING_PATTERNS]

    def __call__(self, text: str) -> str:
        for value, name in self._literals:
            text = text.replace(value, f"<{name}>")
        for name, pattern in self._patterns:
            text = pattern.sub(f"<{name}>", text)
        return text


def rendered(result: ToolResultMessage, normalise: Normaliser) -> str:
    """What is compared of a result: ``is_error``, each detail, a rule, then the text."""
    lines = [f"is_error: {json.dumps(result.is_error)}"]
    lines += [f"{key}: {json.dumps(result.details[key], sort_keys=True)}" for key in sorted(result.details)]
    lines += ["---", result.text]
    return normalise("\n".join(lines))


def difference(recorded: str, replayed: str) -> str | None:
    """The unified diff from the recorded rendering to the replayed one, or None when equal."""
    if recorded == replayed:
        return None
    diff = list(
        difflib.unified_diff(
            recorded.splitlines(), replayed.splitlines(), fromfile="recorded", tofile="replayed", lineterm=""
        )
    )
    if len(diff) > MAX_DIFF_LINES:
        diff = [*diff[:MAX_DIFF_LINES], f"... {len(diff) - MAX_DIFF_LINES} more diff lines"]
    return "\n".join(diff)
