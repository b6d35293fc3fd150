"""An earlier run's conversation, read from its artifact to be continued (``--continue-from``,
the action's ``continue-from``; docs/continue.md).

The artifact is found and read as a replay reads it (``source.py``: a run's folder, the folder
``download-artifact`` or ``gh run download`` leaves, or the zip; bounded, never extracted, each
file checked against ``records.sha256``) and parsed with the replay's readers (``recording.py``).
What is taken from it: the session's messages in ``session.jsonl`` (the session the replay
record's header names; failed or aborted answers left out, as they never reach a provider), the
session and the run it names, what its requests cost (the replay record's replies) and what the
runs it continued cost (its header's ``continues``). Nothing else: no config, extension, schema
or path of the earlier run is read. Every refusal is a ``RecordingError`` (exit 2) that starts
with the input's name.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypeGuard

from pydantic import TypeAdapter, ValidationError

from aw_action.agent.compaction import is_live
from aw_action.agent.events import AnyMessage
from aw_action.agent.history import history_problem
from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT
from aw_action.ai.types import Message
from aw_action.harness.continuation import Continuation
from aw_action.replay.recording import json_lines, replay_lines, validation_problem
from aw_action.replay.source import RecordingError, read_source
from aw_action.sinks.replay_format import Reply
from aw_action.sinks.replay_record import FILE_NAME as REPLAY_FILE

_MESSAGE: TypeAdapter[AnyMessage] = TypeAdapter(Message)
MAX_RUNS = 100_000
"""A ``continues.runs`` above this is not a count a conversation reaches: read as unknown."""


def read_continuation(path: Path, source: str, run_id: str | None = None) -> Continuation:
    """The conversation recorded at ``path``; ``source`` names the input in every refusal.
    ``run_id``: the run that uploaded the artifact (the action's ``continue-from-run``), which its
    records must name (an artifact one run re-uploads of another's is not that run's)."""
    try:
        found = _read(path, source)
    except RecordingError as exc:
        raise RecordingError(f"{source}: {exc}") from None
    recorded = found.run.get("run_id")
    if run_id is not None and recorded != run_id:
        said = f"run {recorded}" if recorded else "no run"
        raise RecordingError(f"{source}: {found.where}: its records name {said}, not run {run_id}, which uploaded it")
    return found


def _read(path: Path, source: str) -> Continuation:
    found = read_source(path)
    where = found.where
    header, replies, _end = replay_lines(found.files[REPLAY_FILE], f"{where}/{REPLAY_FILE}")
    if header.replay_of is not None:
        raise RecordingError(f"{where}: the records of a replay, not of a run: continue from the run it replayed")
    name = f"{where}/{TRANSCRIPT}"
    messages = _messages(found.files[TRANSCRIPT], name, header.session_id)
    problem = history_problem(messages) if messages else "it holds no message of its session"
    if problem is not None:
        raise RecordingError(f"{name}: not a conversation to continue: {problem}")
    run = header.run.model_dump()
    earlier_runs, earlier_cost, earlier_tokens = _earlier(header.continues)
    return Continuation(
        source=source,
        where=where,
        session_id=header.session_id,
        run={key: str(run[key]) for key in ("repository", "run_id", "server_url") if run.get(key)},
        messages=tuple(messages),
        cost_usd=_cost(replies),
        tokens=sum(reply.message.usage.total for reply in replies),
        earlier_runs=earlier_runs,
        earlier_cost_usd=earlier_cost,
        earlier_tokens=earlier_tokens,
    )


def _messages(data: bytes, name: str, session_id: str) -> list[AnyMessage]:
    """The messages of session ``session_id``, in order; failed and aborted answers left out."""
    messages: list[AnyMessage] = []
    current: object = None
    for number, value in json_lines(data, name):
        if value.get("type") == "session":
            current = value.get("id")
        if current != session_id or value.get("type") != "message":
            continue
        try:
            message = _MESSAGE.validate_python(value.get("message"))
        except ValidationError as exc:
            raise RecordingError(f"{name}:{number}: {validation_problem(exc)}") from None
        if is_live(message):
            messages.append(message)
    return messages


def _cost(replies: list[Reply]) -> float | None:
    """What the recorded run's requests cost (None when any price was unknown)."""
    costs = [reply.message.cost_usd for reply in replies]
    if any(cost is None or not math.isfinite(cost) or cost < 0 for cost in costs):
        return None
    return round(sum(cost for cost in costs if cost is not None), 6)


def _earlier(continues: dict[str, Any] | None) -> tuple[int, float | None, int]:
    """The runs before the recorded one, their cost and their tokens, as its header says (a
    value of the wrong type or range: unknown, or no tokens)."""
    if continues is None:
        return 0, 0.0, 0
    runs, cost, tokens = continues.get("runs"), continues.get("cost_usd"), continues.get("tokens")
    count = runs if _whole(runs) and 0 < runs <= MAX_RUNS else 0
    used = tokens if _whole(tokens) and 0 <= tokens < 2**53 else 0
    if isinstance(cost, int | float) and not isinstance(cost, bool) and math.isfinite(cost) and cost >= 0:
        return count, float(cost), used
    return count, None, used


def _whole(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
