"""Build the audit report (a JSON-able dict) from an artifact's records.

Source order: the unified session (the one under ``usage/``, gh-aw's collected file, else the
shallowest) gives requests, turn boundaries, tools, warnings and steering notices;
token-usage files enrich its requests by ``request_id`` (effective tokens, cost, turn) and
stand in for it when there is no unified session. Totals and the per-turn table cover the agent
phase; threat-detection usage is reported apart, as gh-aw does.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict
from typing import Any

from aw_action.audit.readers import (
    LineStats,
    Request,
    duration_ms,
    from_token_usage,
    from_unified,
    iter_jsonl,
    phase_of_path,
)
from aw_action.audit.sources import CONTEXT_PROVENANCE, TOKEN_USAGE, UNIFIED_SESSION, Artifact, AuditInputError
from aw_action.audit.workflow import workflow_report

MAX_REQUESTS = 100_000
"""More usage records than this in one audit is refused (the report lists every request)."""


def _unified_path(artifact: Artifact) -> str | None:
    preferred = [p for p in artifact.named(UNIFIED_SESSION) if p.endswith(f"usage/{UNIFIED_SESSION}")]
    found = preferred or artifact.named(UNIFIED_SESSION)
    return found[0] if found else None


def _totals(requests: list[Request]) -> dict[str, Any]:
    known_cost = all(r.cost_usd is not None for r in requests)
    cost = sum(r.cost_usd or 0 for r in requests)
    credits = sum(r.ai_credits or 0 for r in requests)
    return {
        "requests": len(requests),
        "input_tokens": sum(r.input for r in requests),
        "output_tokens": sum(r.output for r in requests),
        "cache_read_tokens": sum(r.cache_read for r in requests),
        "cache_write_tokens": sum(r.cache_write for r in requests),
        "reasoning_tokens": sum(r.reasoning for r in requests),
        "total_tokens": sum(r.total for r in requests),
        "effective_tokens": round(sum(r.effective for r in requests), 2),
        "cost_usd": round(cost, 8) if known_cost else None,
        "ai_credits": round(credits, 8) if known_cost else None,
        "duration_ms": sum(r.duration_ms for r in requests),
    }


def _by_model(requests: list[Request]) -> dict[str, Any]:
    groups: dict[str, list[Request]] = defaultdict(list)
    for r in requests:
        groups[r.model].append(r)
    return {m: {"provider": rs[0].provider, **_totals(rs)} for m, rs in sorted(groups.items())}


def _turns(requests: list[Request], completed: set[int], cut_short: set[int]) -> list[dict[str, Any]]:
    """Per-turn rows. A turn is complete once its ``assistant.turn_end`` is there and no
    ``harness.turn_cut_short`` says otherwise (a file without turn ends: every turn)."""
    groups: dict[int, list[Request]] = defaultdict(list)
    for r in requests:
        if r.turn is not None:
            groups[r.turn].append(r)
    rows, cumulative, effective, cost = [], 0, 0.0, 0.0
    for turn in sorted(groups):
        rs = groups[turn]
        cumulative += sum(r.total for r in rs)
        effective += sum(r.effective for r in rs)
        turn_cost = None if any(r.cost_usd is None for r in rs) else sum(r.cost_usd or 0 for r in rs)
        cost += turn_cost or 0
        rows.append(
            {
                "turn": turn,
                "completed": turn not in cut_short and (turn in completed or not completed),
                "requests": len(rs),
                "input_tokens": sum(r.input + r.cache_read + r.cache_write for r in rs),
                "output_tokens": sum(r.output + r.reasoning for r in rs),
                "cumulative_tokens": cumulative,
                "effective_tokens": round(sum(r.effective for r in rs), 2),
                "cumulative_effective_tokens": round(effective, 2),
                "cost_usd": turn_cost,
                "cumulative_cost_usd": round(cost, 8),
            }
        )
    return rows


def _counted(requests: list[Request], path: str) -> None:
    if len(requests) > MAX_REQUESTS:
        raise AuditInputError(f"{path}: more than {MAX_REQUESTS} usage records; not a run the audit can report on")


class _Session:
    """One pass over the unified session's records, in file order."""

    def __init__(self, records: Iterable[dict[str, Any]], path: str = "") -> None:
        self.requests: list[Request] = []
        self.completed: set[int] = set()
        self.cut_short: set[int] = set()
        self.tools: dict[str, dict[str, Any]] = {}
        self.warnings: list[str] = []
        self.info: dict[str, dict[str, Any]] = {}
        turn: int | None = None
        for record in records:
            kind, data = record.get("type"), record.get("data")
            data = data if isinstance(data, dict) else {}
            request = from_unified(record)
            if request is not None:
                request.turn = turn if request.phase == "agent" else None
                self.requests.append(request)
                _counted(self.requests, path)
            elif kind == "assistant.turn_start":
                turn = _turn_id(data, turn)
            elif kind == "assistant.turn_end":
                if (ended := _turn_id(data, turn)) is not None:
                    self.completed.add(ended)
                turn = None
            elif kind == "harness.turn_cut_short" and (cut := _turn_id(data, turn)) is not None:
                self.cut_short.add(cut)
            elif kind == "tool.execution_complete":
                stats = self.tools.setdefault(
                    str(data.get("toolName") or "?"), {"count": 0, "errors": 0, "duration_ms": 0}
                )
                stats["count"] += 1
                stats["errors"] += int(bool(data.get("isError")) or data.get("success") is False)
                stats["duration_ms"] += duration_ms(data.get("durationMs")) or 0
            elif kind == "harness.warning" and data.get("message"):
                self.warnings.append(str(data["message"]))
            elif isinstance(kind, str) and kind in (
                "harness.run",
                "harness.workflow",
                "session.result",
                "workflow.info",
                "session.init",
                "session.start",
                "agent.execution",
            ):
                self.info.setdefault(kind, data)


def _turn_id(data: dict[str, Any], default: int | None) -> int | None:
    try:
        return int(str(data.get("turnId")))
    except ValueError:
        return default


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _whole(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _overview(info: dict[str, dict[str, Any]], requests: list[Request]) -> dict[str, Any]:
    """The run's headline facts; every value is the expected type or None (records may lie)."""
    run, result = info.get("harness.run", {}), info.get("session.result", {})
    start = info.get("session.start") or info.get("session.init") or {}
    named = (run.get("model"), info.get("workflow.info", {}).get("model"), start.get("model"), result.get("model"))
    model = next((m for m in named if _text(m)), None)
    if not model and requests:
        model = requests[-1].model
    exit_code = run.get("exitCode", info.get("agent.execution", {}).get("exitCode"))
    return {
        "model": model,
        "conclusion": _text(run.get("conclusion")) or _text(result.get("status")),
        "stop_reason": _text(run.get("stopReason")),
        "exit_code": _whole(exit_code),
        "duration_ms": duration_ms(run.get("durationMs", result.get("durationMs"))),
        "turns": _whole(result.get("numTurns")),
        "source": "aw-harness" if run else "gh-aw",
    }


def _degraded(value: Any) -> list[dict[str, str]]:
    items = value if isinstance(value, list) else []
    keys = ("subsystem", "detail", "hint")
    return [{k: str(d.get(k, "")) for k in keys} for d in items if isinstance(d, dict)]


def build_report(artifact: Artifact) -> dict[str, Any]:
    sources: list[str] = []
    skipped: list[dict[str, Any]] = []
    rows: dict[str, Request] = {}
    row_list: list[Request] = []

    def lines_of(path: str) -> Iterator[dict[str, Any]]:
        stats = LineStats()
        yield from iter_jsonl(artifact.files[path], stats)
        if stats.bad:
            skipped.append({"file": path, "lines": stats.bad, "first": stats.first_problem})

    for path in artifact.named(TOKEN_USAGE):
        sources.append(path)
        for record in lines_of(path):
            if (req := from_token_usage(record, phase_of_path(path))) is not None:
                row_list.append(req)
                _counted(row_list, path)
                rows.setdefault(req.request_id, req)
    session = _Session([])
    if (unified := _unified_path(artifact)) is not None:
        sources.insert(0, unified)
        session = _Session(lines_of(unified), unified)
    requests = session.requests or row_list
    for req in session.requests:
        row = rows.get(req.request_id)
        if row is not None:
            req.effective_tokens = row.effective_tokens
            req.cost_usd = row.cost_usd if row.cost_usd is not None else req.cost_usd
            req.ai_credits = row.ai_credits if row.ai_credits is not None else req.ai_credits
            req.reasoning = req.reasoning or row.reasoning
            req.purpose = req.purpose or row.purpose
            req.turn = req.turn if req.turn is not None else row.turn
    agent = [r for r in requests if r.phase == "agent"]
    detection = [r for r in requests if r.phase != "agent"]
    notices = [{**r.steering, "request_id": r.request_id, "phase": r.phase} for r in requests if r.steering]
    degraded = _degraded(session.info.get("harness.run", {}).get("degraded"))
    report: dict[str, Any] = {
        "overview": _overview(session.info, requests),
        "totals": _totals(agent),
        "by_model": _by_model(agent),
        "turns": _turns(agent, session.completed, session.cut_short),
        "steering_notices": notices,
        "tools": [{"name": n, **s} for n, s in sorted(session.tools.items())],
        "warnings": session.warnings,
        "degraded": degraded,
        "context_provenance": _provenance(artifact),
        "sources": sources + artifact.named(CONTEXT_PROVENANCE),
        "skipped_lines": sum(entry["lines"] for entry in skipped),
        "skipped": skipped,
        "requests": [asdict(r) for r in requests],
    }
    workflow = workflow_report(session.info.get("harness.workflow"))
    if workflow is not None:
        report["workflow"] = workflow
    if detection:
        report["detection"] = {"totals": _totals(detection), "by_model": _by_model(detection)}
    return report


def _provenance(artifact: Artifact) -> list[dict[str, Any]]:
    paths = artifact.named(CONTEXT_PROVENANCE)
    if not paths:
        return []
    keep = ("source", "path", "tokens", "cumulative_tokens", "role")
    return [{k: r[k] for k in keep if k in r} for r in iter_jsonl(artifact.files[paths[0]], LineStats())]
