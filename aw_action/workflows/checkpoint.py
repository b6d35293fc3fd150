"""The checkpoint: a typed, versioned JSON file that lets a paused run continue in a later job.

It holds the workflow's identity and digests, the run state (current step, visits, history with
handoffs, pending review artifact, pauses) and the conversation: a reference to the saved
session transcript and/or the message history itself. It is written atomically (temporary file
in the same folder, fsync, rename), so a reader sees the old file or the new one, never half;
in a run, through the output dir the run holds and into its record ledger.
Every string passes through ``scrub`` (the run's redactor) before it is written.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import Message
from aw_action.environment.strict_json import TooDeep, parse_json
from aw_action.security.records.record_guard import RecordWrites, write_record
from aw_action.workflows.errors import CheckpointError
from aw_action.workflows.loader import LoadedWorkflow
from aw_action.workflows.state import RunState

KIND: Final = "aw-harness/workflow-checkpoint"
VERSION: Final = 1
MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024
MAX_CHECKPOINT_DEPTH = 100
"""Levels of JSON nesting a checkpoint may have (a tool call's arguments are the deepest part)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CheckpointWorkflow(_Model):
    id: str
    source: str
    digest: str
    step_digests: dict[str, str]


class Checkpoint(_Model):
    kind: Literal["aw-harness/workflow-checkpoint"] = KIND
    version: Literal[1] = VERSION
    written_at: str
    workflow: CheckpointWorkflow
    state: RunState
    history_ref: str | None = None
    """Where the session's transcript was saved (e.g. ``session.jsonl`` in the run's artifact)."""
    messages: list[dict[str, Any]] | None = None
    """The session's message history as JSON objects, when the checkpoint carries it."""


def make_checkpoint(
    workflow: LoadedWorkflow,
    state: RunState,
    *,
    history_ref: str | None = None,
    messages: list[dict[str, Any]] | None = None,
    now: datetime | None = None,
) -> Checkpoint:
    return Checkpoint(
        written_at=(now or datetime.now(UTC)).isoformat(),
        workflow=CheckpointWorkflow(
            id=workflow.definition.id,
            source=workflow.source,
            digest=workflow.digest,
            step_digests=dict(workflow.step_digests),
        ),
        state=state,
        history_ref=history_ref,
        messages=messages,
    )


_MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


def messages_to_json(messages: list[AnyMessage]) -> list[dict[str, Any]]:
    """A session's messages as JSON objects for ``Checkpoint.messages``."""
    return [m.model_dump(mode="json") for m in messages]


def messages_from_json(data: list[dict[str, Any]]) -> list[AnyMessage]:
    """``Checkpoint.messages`` back as session messages; ``CheckpointError`` if malformed."""
    try:
        return list(_MESSAGES.validate_python(data))
    except ValidationError as exc:
        raise CheckpointError(f"checkpoint messages: {exc.errors()[0]['msg']}") from None


def _scrub_all(value: Any, scrub: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrub_all(v, scrub) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_all(v, scrub) for k, v in value.items()}
    return value


def write_checkpoint(
    path: Path,
    checkpoint: Checkpoint,
    scrub: Callable[[str], str] | None = None,
    records: RecordWrites | None = None,
) -> Path:
    """Write ``checkpoint`` to ``path`` atomically (mode 0600); returns ``path``. With the run's
    ``records`` (its ledger) the file is written into the held output dir and its hash recorded,
    so a checkpoint changed afterwards is found (``record_guard``, ``record_manifest``)."""
    data = checkpoint.model_dump(mode="json")
    if scrub is not None:
        data = _scrub_all(data, scrub)
    text = json.dumps(data, ensure_ascii=False, indent=1, allow_nan=False) + "\n"
    write_record(path, text.encode("utf-8"), records, mode=0o600)
    return path


def read_checkpoint(path: Path) -> Checkpoint:
    """Read and validate a checkpoint; ``CheckpointError`` names the file and the problem."""
    where = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise CheckpointError(f"{where}: cannot open: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CheckpointError(f"{where}: not a regular file")
        if info.st_size > MAX_CHECKPOINT_BYTES:
            raise CheckpointError(f"{where}: larger than {MAX_CHECKPOINT_BYTES // (1024 * 1024)} MiB")
        with os.fdopen(os.dup(fd), "rb") as handle:
            raw = handle.read(MAX_CHECKPOINT_BYTES + 1)
    finally:
        os.close(fd)
    try:
        data = parse_json(raw.decode("utf-8"), finite=True, max_depth=MAX_CHECKPOINT_DEPTH)
    except TooDeep:
        raise CheckpointError(f"{where}: nested deeper than {MAX_CHECKPOINT_DEPTH} levels") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise CheckpointError(f"{where}: not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise CheckpointError(f"{where}: not an aw-harness workflow checkpoint")
    if data.get("version") != VERSION:
        raise CheckpointError(
            f"{where}: checkpoint version {data.get('version')!r} is not supported (this aw-harness reads {VERSION})"
        )
    try:
        return Checkpoint.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise CheckpointError(f"{where}: {loc}: {first['msg']}") from None
