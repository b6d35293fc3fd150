"""One run's facts from its own records, and the entries of what could not be read.

A run's figures are the ones it recorded for itself at its end: ``harness.run`` (conclusion,
stop reason, exit code, model, tool calls, effective tokens, cost, duration, the one-line
explanation ``run/explain.py`` gave) and ``session.result`` (turns, tokens) in its
``aw_session.jsonl`` (``sinks/unified_records.py`` writes both); the link from ``workflow.info``
(the repository and run id of the job that ran it). Records may lie: each value is taken only
when it has the expected type (the audit's readers parse each line bounded:
``audit/readers.py``), and text that reaches Markdown goes through ``sinks/markdown``.

A run that could not start (an invalid input: exit 2 before any session) records no session and
no manifest; the action still leaves its ``result.json`` in the artifact. ``not_started`` counts
it as a failed run, its error explained as its step summary explained it, its figures unknown.

A record format other than the one this aw-harness writes (``session.format``'s version), or a
session without its ``harness.run`` (an aw-harness from before it was written), is a
``Problem`` of status ``older-format``, never a run with made-up figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from aw_action.audit.readers import duration_ms, parse_record
from aw_action.environment.runner import DEFAULT_SERVER_URL
from aw_action.exits import InvocationError
from aw_action.lazy_dataclass import dataclass
from aw_action.run.explain import explain
from aw_action.run.result import RESULT_FILE, RunResult
from aw_action.sinks.unified_session import HEADER

Status = Literal["unreadable", "inconsistent", "older-format", "merged"]
FORMAT_VERSION: int = HEADER["data"]["version"]
"""The ``aw_session.jsonl`` format this aw-harness writes, and the one the report reads."""
_REPOSITORY = re.compile(r"^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$")
_SERVER = re.compile(r"^https://[A-Za-z0-9.-]+(:[0-9]+)?$")
DEFAULT_SERVER = DEFAULT_SERVER_URL
MAX_TEXT = 1000
"""Recorded text (an explanation, a model name) is cut here: one line in a table."""


@dataclass(frozen=True)
class RunFacts:
    """One run as its records tell it; a figure it did not record is None (unknown, not zero)."""

    artifact: str
    session_id: str | None
    conclusion: str
    stop_reason: str
    exit_code: int | None
    model: str | None
    turns: int | None
    tool_calls: int | None
    tokens: int | None
    effective_tokens: float | None
    cost_usd: float | None
    duration_ms: float | None
    link: str | None
    explanation: str | None

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and self.conclusion == "success"


@dataclass(frozen=True)
class Problem:
    """An artifact the report could not count, and why (one line naming the file)."""

    artifact: str
    status: Status
    problem: str


def _text(value: Any) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    line = " ".join(value.split())
    return line if len(line) <= MAX_TEXT else line[: MAX_TEXT - 1] + "…"


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
    return float(value) if ok else None


def run_link(info: dict[str, Any], server: str) -> str | None:
    """The run's page, when its records name a repository and a run id of the expected shape."""
    repository, run_id = info.get("repository"), info.get("runId")
    if not isinstance(repository, str) or not _REPOSITORY.match(repository):
        return None
    if not isinstance(run_id, str | int) or not str(run_id).isdigit():
        return None
    base = server if _SERVER.match(server) else DEFAULT_SERVER
    return f"{base}/{repository}/actions/runs/{run_id}"


def run_facts(records: Iterable[dict[str, Any]], artifact: str, where: str, server: str) -> RunFacts | Problem:
    """The facts of the run whose unified-session records are ``records`` (in file order)."""
    info: dict[str, dict[str, Any]] = {}
    version: Any = None
    for record in records:
        kind, data = record.get("type"), record.get("data")
        if kind == "session.format" and version is None and isinstance(data, dict):
            version = data.get("version")
        elif kind in ("harness.run", "session.result", "session.start", "workflow.info") and isinstance(data, dict):
            info.setdefault(str(kind), data)
    if version != FORMAT_VERSION:
        said = "no session.format header" if version is None else f"format version {version!r}"
        return Problem(artifact, "older-format", f"{where}: {said}; this aw-harness reads version {FORMAT_VERSION}")
    run = info.get("harness.run")
    if run is None:
        return Problem(
            artifact,
            "older-format",
            f"{where}: no harness.run record (written by an older aw-harness, or the run did not finish its records)",
        )
    result = info.get("session.result", {})
    raw_usage = result.get("usage")
    usage: dict[str, Any] = raw_usage if isinstance(raw_usage, dict) else {}
    return RunFacts(
        artifact=artifact,
        session_id=_text(info.get("session.start", {}).get("sessionId")),
        conclusion=_text(run.get("conclusion")) or "unknown",
        stop_reason=_text(run.get("stopReason")) or "unknown",
        exit_code=_whole(run.get("exitCode")),
        model=_text(run.get("model")),
        turns=_whole(result.get("numTurns")),
        tool_calls=_whole(run.get("toolCalls")),
        tokens=_whole(usage.get("totalTokens")),
        effective_tokens=_number(run.get("effectiveTokens")),
        cost_usd=_number(run.get("costUsd")),
        duration_ms=duration_ms(run.get("durationMs")),
        link=run_link(info.get("workflow.info", {}), server),
        explanation=_text(run.get("explanation")),
    )


_WORD = re.compile(r"^[a-z][a-z_]{0,39}$")


def not_started(data: bytes, artifact: str, where: str) -> RunFacts | Problem:
    """The run of an artifact that holds only the action's ``result.json`` of a run that could
    not start (exit code 2); any other ``result.json`` without records is a ``Problem``."""
    try:
        value = parse_record(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return Problem(artifact, "unreadable", f"{where}/{RESULT_FILE}: {exc}")
    if not isinstance(value, dict) or value.get("exit_code") != 2:
        return Problem(
            artifact,
            "older-format",
            f"{where}: a {RESULT_FILE} without its run's records (no records.sha256, no aw_session.jsonl)",
        )
    stop_reason = value.get("stop_reason") if _WORD.match(str(value.get("stop_reason"))) else "invocation_error"
    model = _text(value.get("model"))
    error = _text(value.get("error")) or "the run could not start"
    result = RunResult.invocation_error(InvocationError(error), model or "unknown")
    return RunFacts(
        artifact=artifact,
        session_id=None,
        conclusion="failure",
        stop_reason=str(stop_reason),
        exit_code=2,
        model=model,
        turns=None,
        tool_calls=None,
        tokens=None,
        effective_tokens=None,
        cost_usd=None,
        duration_ms=None,
        link=None,
        explanation=_text(explain(result, "action").plain()),
    )
