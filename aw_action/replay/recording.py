"""A recorded run, read back as typed values: what ``aw-harness replay`` plays and compares.

``load_recording(path)`` reads the files (``source.py``: found, bounded, checked against
``records.sha256``) and parses them: the replay record's header, replies and end
(``sinks/replay_format``), and from the transcript the prompt the run was given and every tool
result by its call's id. A recording in another format than this harness replays says which
aw-harness wrote it; a line that is not what its writer writes (nor JSON as ``parse_json`` takes
it: finite numbers, bounded nesting and length) names its file and line; a lone surrogate
(a ``\\ud800`` escape) reads as U+FFFD, as the loop cleans what a model sends. Runs
that ``aw-harness replay`` cannot drive yet (a workflow's steps) are refused with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from aw_action.agent.transcript import FILE_NAME as TRANSCRIPT
from aw_action.ai.text import clean_value
from aw_action.ai.types import ToolResultMessage, UserMessage
from aw_action.environment.strict_json import parse_json
from aw_action.lazy_dataclass import dataclass
from aw_action.replay.source import RecordingError, read_source
from aw_action.sinks.replay_format import FORMAT, REPLAYED_SOURCES, End, Header, ModelSwitch, Reply
from aw_action.sinks.replay_record import FILE_NAME as REPLAY_FILE
from aw_action.sinks.replay_record import harness_version

PROMPT_SOURCE = "prompt"
MAX_LINE_CHARS = 32 * 2**20
"""Longer than any line a run writes (a prompt is at most 10 MiB, a reply at most a model's output)."""


@dataclass(frozen=True)
class Recording:
    records: str
    """The path the recording was read from (a folder, or a zip)."""
    where: str
    header: Header
    replies: list[Reply]
    end: End
    prompt: str
    results: dict[str, ToolResultMessage] = field(default_factory=dict)
    """Each tool call's result as the transcript persisted it, by the call's id."""

    @property
    def turns(self) -> int:
        return self.end.turns

    def turn_of_call(self, call_id: str) -> int | None:
        for reply in self.replies:
            if any(call.id == call_id for call in reply.message.tool_calls):
                return reply.turn
        return None


def load_recording(path: Path) -> Recording:
    """The recording at ``path`` (``RecordingError`` with the file and reason)."""
    source = read_source(path)
    where = source.where
    header, replies, end = replay_lines(source.files[REPLAY_FILE], f"{where}/{REPLAY_FILE}")
    if header.continues is not None:
        raise RecordingError(
            f"{where}/{REPLAY_FILE}: the run continued an earlier conversation (--continue-from): its history did "
            "not come from its prompt, so it cannot be replayed; replay the runs it continued"
        )
    prompt, results = _transcript(source.files[TRANSCRIPT], f"{where}/{TRANSCRIPT}")
    return Recording(str(path), where, header, replies, end, prompt, results)


def json_lines(data: bytes, name: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordingError(f"{name}: not UTF-8 text: {exc}") from None
    # Lines end at "\n" only: the records are written with ensure_ascii=False, so a string may hold
    # U+2028, U+2029 or U+0085, at which str.splitlines() would cut a record in two.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        if len(line) > MAX_LINE_CHARS:
            raise RecordingError(f"{name}:{number}: a line longer than {MAX_LINE_CHARS // 2**20} MiB")
        try:
            value = parse_json(line, finite=True)
        except json.JSONDecodeError:
            raise RecordingError(f"{name}:{number}: not a JSON line") from None
        except ValueError as exc:
            raise RecordingError(f"{name}:{number}: not usable JSON: {exc}") from None
        if not isinstance(value, dict):
            raise RecordingError(f"{name}:{number}: not a JSON object")
        yield number, clean_value(value)


def validation_problem(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the line"
    return f"{where}: {first['msg']}"


def replay_lines(data: bytes, name: str) -> tuple[Header, list[Reply], End]:
    header: Header | None = None
    replies: list[Reply] = []
    end: End | None = None
    for number, value in json_lines(data, name):
        kind = value.get("type")
        if header is None:
            if kind != "header":
                raise RecordingError(f"{name}:{number}: the first line is not the recording's header")
            _check_format(value, name)
        elif end is not None:
            raise RecordingError(f"{name}:{number}: a line after the recording's end")
        try:
            if kind == "header" and header is None:
                header = Header.model_validate(value)
            elif kind == "reply":
                replies.append(Reply.model_validate(value))
            elif kind == "end":
                end = End.model_validate(value)
            elif kind == "model_change":  # checked; the replies are played in order whatever their model
                ModelSwitch.model_validate(value)
            else:
                raise RecordingError(f"{name}:{number}: unexpected line type {str(kind)[:40]!r}")
        except ValidationError as exc:
            raise RecordingError(f"{name}:{number}: {validation_problem(exc)}") from None
    if header is None:
        raise RecordingError(f"{name}: empty: the run recorded nothing")
    if end is None:
        raise RecordingError(f"{name}: the recording has no end line: its run did not finish writing it")
    if end.requests != len(replies):
        raise RecordingError(f"{name}: the end line counts {end.requests} replies and the file holds {len(replies)}")
    return header, replies, end


def _check_format(value: dict[str, Any], name: str) -> None:
    recorded = value.get("format")
    if recorded != FORMAT:
        writer = str(value.get("harness", "an unknown version"))[:40]
        raise RecordingError(
            f"{name}: recorded in format {str(recorded)[:20]} by aw-harness {writer}; this aw-harness "
            f"({harness_version()}) replays format {FORMAT}: replay it with aw-harness {writer}"
        )


def _transcript(data: bytes, name: str) -> tuple[str, dict[str, ToolResultMessage]]:
    prompt: str | None = None
    results: dict[str, ToolResultMessage] = {}
    for number, value in json_lines(data, name):
        message = value.get("message") if value.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        try:
            if message.get("role") == "user":
                user = UserMessage.model_validate(message)
                if user.source not in REPLAYED_SOURCES:
                    raise RecordingError(
                        f"{name}:{number}: a prompt from {str(user.source)[:60]!r}: only a single-prompt run "
                        "(aw-harness --config/--prompt, the action, gh-aw) can be replayed, not a workflow's steps"
                    )
                if prompt is None and user.source == PROMPT_SOURCE:
                    prompt = user.text
            elif message.get("role") == "toolResult":
                result = ToolResultMessage.model_validate(message)
                results.setdefault(result.tool_call_id, result)
        except ValidationError as exc:
            raise RecordingError(f"{name}:{number}: {validation_problem(exc)}") from None
    if prompt is None:
        raise RecordingError(f"{name}: holds no prompt: the run never started its session")
    return prompt, results
