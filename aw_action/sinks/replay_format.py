"""The replay record's lines, as typed models: what ``replay.jsonl`` holds and ``aw-harness replay``
reads back (docs/replay.md).

One ``header`` line first (the recording's format, the harness that wrote it, the model, the
config as resolved, the workspace and its starting commit, the GitHub run, what varies from run
to run), then one ``reply`` line per model request that was answered (the provider's message
exactly as the loop got it: every block, tool-call ids, usage, cost) and a ``model_change`` line
where the session switched models, then one ``end`` line
when the run finished its records. The tool results are the transcript's (``session.jsonl``).

``FORMAT`` is the format this harness writes and replays; a recording in another format is not
replayed. ``VARYING_PATTERNS`` is the one table of what a comparison of tool results treats as
varying besides the literal values a header names (``varies``): a header lists the names of
the patterns that applied when it was written, and the replayer uses its own regular
expressions for them (never one read from a recording).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from aw_action.ai.types import AssistantMessage

FORMAT = 1
VARYING_PATTERNS: dict[str, re.Pattern[str]] = {
    "timestamp": re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
    "clock": re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"),
    "duration": re.compile(
        r"\b\d+(?:[.,]\d+)?\s?(?:ns|µs|us|ms|s|sec|secs|seconds?|min|mins|minutes?|h|hours?)\b", re.IGNORECASE
    ),
    "spill-log": re.compile(r"\bbash-[0-9a-f]{16}\.log\b"),
}
"""Name -> what it matches; each match reads ``<name>`` on both sides of a comparison."""
MIN_VARYING_CHARS = 6
"""A varying value shorter than this is not replaced: it would garble ordinary text."""
REPLAYED_SOURCES = frozenset({"prompt", "steer", "follow_up", "next_turn", "compaction", "output-schema"})
"""The user messages a replay reproduces (``UserMessage.source``): the prompt it sends, and what
the harness and its built-ins send again by themselves. A run with any other (a workflow's steps)
cannot be replayed."""
PATHS = ("workspace", "output-dir", "tmpdir")
"""The varying values that are folders: a replay moves them in tool-call arguments to its own."""


def varying(workspace: str, output_dir: str, tmpdir: str | None, session_id: str, run_id: str | None) -> dict[str, str]:
    """A run's values that differ in the next run, by placeholder name (unknown ones left out)."""
    values = {
        "workspace": workspace,
        "output-dir": output_dir,
        "tmpdir": tmpdir or "",
        "session-id": session_id,
        "run-id": run_id or "",
    }
    return {name: value for name, value in values.items() if value}


class _Line(BaseModel):
    """A recorded line's fields: a text field never holds a NUL byte (no path, id or name can,
    and a recording that says otherwise was crafted: refused naming the field)."""

    # built when first used: a run writes its header before its first request, the rest after it
    model_config = ConfigDict(extra="ignore", protected_namespaces=(), defer_build=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        texts = value.values() if isinstance(value, dict) else [value]
        if any(isinstance(text, str) and "\0" in text for text in texts):
            raise ValueError("holds a NUL byte")
        return value


class RecordedModel(_Line):
    """``ai.types.Model``'s fields, as the run resolved its model."""

    id: str
    provider: str
    api: str
    context_window: int
    max_output_tokens: int
    reasoning: bool = False
    price_ref: str | None = None
    price_provider: str | None = None


class RecordedWorkspace(_Line):
    path: str
    commit: str | None = None
    """``HEAD`` when the run started, when the workspace is a git repository."""


class RecordedRun(_Line):
    """The GitHub run that made the recording (all None outside Actions)."""

    repository: str | None = None
    run_id: str | None = None
    run_attempt: str | None = None
    sha: str | None = None
    server_url: str | None = None
    workflow: str | None = None
    job: str | None = None


class ReplayOf(_Line):
    """On a replay's own header: the recording it replayed."""

    session_id: str
    run: RecordedRun = Field(default_factory=RecordedRun)
    records: str
    """Where the recording was read from (a folder or a zip)."""


class Header(_Line):
    type: Literal["header"] = "header"
    format: int
    harness: str
    """The version of aw-harness that wrote the recording."""
    session_id: str
    model: RecordedModel
    config: dict[str, Any]
    """config.json as the run resolved it (``RunConfig``, by alias); secrets redacted."""
    config_dir: str
    """Where relative paths of the config resolve from: relative to the workspace when inside it."""
    workspace: RecordedWorkspace
    run: RecordedRun = Field(default_factory=RecordedRun)
    varies: dict[str, str] = Field(default_factory=dict)
    """Placeholder name -> this run's value (its workspace, output dir, temp dir, ids)."""
    patterns: list[str] = Field(default_factory=list)
    """The names of the ``VARYING_PATTERNS`` that applied."""
    replay_of: ReplayOf | None = None
    continues: dict[str, Any] | None = None
    """When the run continued an earlier conversation (``harness/continuation.Continuation.record``):
    which session and run, how many runs came before it and what they cost together."""


class Reply(_Line):
    type: Literal["reply"] = "reply"
    index: int
    """The request's place in the run, from 1."""
    turn: int
    """The run's turn (1-based over the whole run, as the ledger and the summary count them)."""
    prompt: int = 1
    purpose: str = "agent"
    message: AssistantMessage


class ModelSwitch(_Line):
    """The session switched models at a save point: the replies from ``turn`` on are the new
    model's (a replay plays them in order, whatever model wrote them)."""

    type: Literal["model_change"] = "model_change"
    turn: int
    from_model: str
    to_model: str


class End(_Line):
    type: Literal["end"] = "end"
    stop_reason: str
    turns: int
    requests: int
