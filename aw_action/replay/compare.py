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
import re
from collections.abc import Iterable, Mapping
from typing import Any

from aw_action.ai.types import ToolResultMessage
from aw_action.sinks.replay_format import MIN_VARYING_CHARS, VARYING_PATTERNS

MAX_DIFF_LINES = 200


class Substitution:
    """Literal values replaced in one pass, the longest first (a replacement is never replaced
    again); values shorter than ``MIN_VARYING_CHARS`` are left alone."""

    def __init__(self, replacements: Mapping[str, str]) -> None:
        self._table = {old: new for old, new in replacements.items() if len(old) >= MIN_VARYING_CHARS and old != new}
        olds = sorted(self._table, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, olds))) if olds else None

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda found: self._table[found.group(0)], text)

    def within(self, value: Any) -> Any:
        """``value`` with every string in it (a JSON value: dicts and lists walked) substituted."""
        if isinstance(value, str):
            return self(value)
        if isinstance(value, dict):
            return {key: self.within(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.within(item) for item in value]
        return value


class Normaliser:
    """Rewrites one run's varying values and patterns as placeholders."""

    def __init__(self, varies: Mapping[str, str], patterns: Iterable[str]) -> None:
        self._literals = Substitution({value: f"<{name}>" for name, value in varies.items()})
        self._patterns = [(name, VARYING_PATTERNS[name]) for name in patterns if name in VARYING_PATTERNS]

    def __call__(self, text: str) -> str:
        text = self._literals(text)
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
