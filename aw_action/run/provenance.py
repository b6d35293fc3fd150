"""Context provenance: one record per context entry of the first message, in order.

Only metadata (source, path, token estimate, running total, role) is kept, never text
(spec §8.5.2, §13).
"""

from __future__ import annotations

from typing import Any

from aw_action.ai.usage import estimate_tokens
from aw_action.run.prompt_files import ResolvedImport, import_block
from aw_action.run.state import RunState
from aw_action.timestamps import utc_iso


def record_inputs(state: RunState, imports: list[ResolvedImport], prompt: str) -> None:
    cumulative = 0
    for item in imports:
        tokens = estimate_tokens(import_block(item))
        cumulative += tokens
        state.record.provenance.append(_record("import", tokens, cumulative, path=item.path))
    tokens = estimate_tokens(prompt)
    state.record.provenance.append(_record("prompt", tokens, cumulative + tokens))


def _record(source: str, tokens: int, cumulative: int, path: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"timestamp": utc_iso(), "source": source}
    if path is not None:
        record["path"] = path
    record.update(tokens=tokens, cumulative_tokens=cumulative, role="user")
    return record


def record_appendix(state: RunState, source: str, text: str) -> None:
    """A context entry added after the prompt (the fenced event context)."""
    tokens = estimate_tokens(text)
    cumulative = state.record.provenance[-1]["cumulative_tokens"] if state.record.provenance else 0
    state.record.provenance.append(_record(source, tokens, cumulative + tokens))
