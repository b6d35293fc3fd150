"""Step outputs: the ``GITHUB_OUTPUT`` file and the mapping from the run result to output names.

Every value is written in the heredoc form ``name<<DELIM`` / value / ``DELIM`` with a fresh
random delimiter that does not occur in the value, so a multi-line final message (or one that
contains ``name=value`` lines) cannot forge another output. The runner reads the file after the
step ends, even after a cancel, so writing outputs early is what makes them survive a kill.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

OUTPUT_NAMES = (
    "conclusion",
    "stop-reason",
    "exit-code",
    "turns",
    "input-tokens",
    "output-tokens",
    "effective-tokens",
    "cost-usd",
    "ai-credits",
    "final-message",
    "session-file",
    "session-id",
    "artifact-id",
    "structured-output",
    "created-urls",
    "created-items",
    "applied-count",
    "failed-count",
    "replay",
)
APPLY_OUTPUT_NAMES = ("created-urls", "created-items", "applied-count", "failed-count")
"""Written by ``mode: apply`` (``apply_outputs/report.py``), with ``conclusion`` and ``exit-code``."""
REPLAY_OUTPUT_NAMES = ("replay",)
"""Written by ``mode: replay`` (``replay/action_mode.py``), with a run's outputs."""


class OutputError(ValueError):
    pass


def heredoc_entry(name: str, value: str) -> str:
    """One ``GITHUB_OUTPUT`` entry, newline-terminated."""
    if not name or "\n" in name or "\r" in name or "<<" in name or "=" in name:
        raise OutputError(f"invalid output name {name!r}")
    delimiter = f"ghadelimiter_{uuid.uuid4()}"
    while delimiter in value:  # pragma: no cover - a 122-bit collision
        delimiter = f"ghadelimiter_{uuid.uuid4()}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def write_outputs(path: str | Path | None, outputs: Mapping[str, str]) -> bool:
    """Appends the outputs to ``GITHUB_OUTPUT``; False when there is no such file to write."""
    if not path:
        return False
    text = "".join(heredoc_entry(name, value) for name, value in outputs.items())
    with open(path, "a", encoding="utf-8", newline="\n") as handle:
        handle.write(text)
    return True


def _number(value: Any, digits: int | None = None) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and digits is not None:
        value = round(value, digits)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


FINAL_MESSAGE_MAX_CHARS = 65_536
"""GitHub allows 1 MiB of outputs per job; a final message over this keeps its head and says so
(the whole message stays in the transcript)."""


def _final_message(text: str) -> str:
    if len(text) <= FINAL_MESSAGE_MAX_CHARS:
        return text
    return text[:FINAL_MESSAGE_MAX_CHARS] + f"\n\n[final message truncated: {len(text):,} characters; see session-file]"


def result_outputs(result: Mapping[str, Any], session_file: str = "", session_id: str = "") -> dict[str, str]:
    """Output values from the run's result object (``RunResult.to_json()``, already redacted).

    ``input-tokens`` counts every input token including cache reads and writes;
    ``output-tokens`` includes reasoning tokens; unknown costs are empty strings; ``session-id``
    is the run's session (empty when none started), the one a later run's ``continue-from``
    continues (docs/continue.md).
    """
    tokens: Mapping[str, Any] = result.get("tokens") or {}
    input_tokens = sum(int(tokens.get(k) or 0) for k in ("input", "cache_read", "cache_write"))
    output_tokens = sum(int(tokens.get(k) or 0) for k in ("output", "reasoning"))
    return {
        "conclusion": str(result.get("conclusion", "failure")),
        "stop-reason": str(result.get("stop_reason", "")),
        "exit-code": str(result.get("exit_code", 1)),
        "turns": str(result.get("turns", 0)),
        "input-tokens": str(input_tokens),
        "output-tokens": str(output_tokens),
        "effective-tokens": _number(tokens.get("effective", 0), 2),
        "cost-usd": _number(result.get("cost_usd"), 6),
        "ai-credits": _number(result.get("ai_credits"), 4),
        "final-message": _final_message(str(result.get("final_message") or "")),
        "session-file": session_file,
        "session-id": session_id,
        "structured-output": _structured(result),
    }


STRUCTURED_OUTPUT_MAX_CHARS = 512 * 1024
"""Within GitHub's 1 MiB of outputs per job; a larger value is only in structured-output.json
(cutting it would leave invalid JSON)."""


def _structured(result: Mapping[str, Any]) -> str:
    """The validated output-schema value as JSON; empty without a schema, when it never matched,
    or when it is too large for an output."""
    if "structured_output" not in result or result.get("exit_code") != 0:
        return ""
    text = json.dumps(result["structured_output"], ensure_ascii=False)
    return text if len(text) <= STRUCTURED_OUTPUT_MAX_CHARS else ""
