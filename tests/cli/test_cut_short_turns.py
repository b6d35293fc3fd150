"""A turn cut short ends like any other (``agent/loop.py``, "Endings"; Pi's agent loop): every
``turn_start`` has its ``turn_end``, in the JSONL on stderr and in ``aw_session.jsonl``, and the
cut-short one carries the stop reason. What it had not persisted is discarded: no aborted
assistant message reaches ``session.jsonl`` and the step summary counts only completed turns.

The real CLI, the real ``anthropic`` SDK, a local server (``tests/faults/matrix.py``): the
deadline mid-request, a budget abort mid-tool-batch, a cancel mid-stream.
"""

from __future__ import annotations

import dataclasses
import json
import signal
from pathlib import Path
from typing import Any

from tests.faults.matrix import FaultRun, check_contract, final_turn, run_fault, tool_turn
from tests.servers import anthropic as wire
from tests.servers.wire import Reply, WireServer

SLOW = Reply(delay_s=60, chunks=[b"{}"])


def unified(run: FaultRun) -> list[dict[str, Any]]:
    path = run.output_dir / "aw_session.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def assert_turns_paired(run: FaultRun, stop_reason: str) -> dict[str, Any]:
    """Every turn_start has its turn_end, in order, in both streams; returns the last turn_end."""
    kinds = [e["event"] for e in run.events() if e.get("event") in ("turn_start", "turn_end")]
    assert kinds and kinds == ["turn_start", "turn_end"] * (len(kinds) // 2), kinds
    starts, ends = run.events("turn_start"), run.events("turn_end")
    assert [e["turn"] for e in starts] == [e["turn"] for e in ends]
    assert all("stop_reason" not in e for e in ends[:-1])
    assert ends[-1]["stop_reason"] == stop_reason
    records = [r["type"] for r in unified(run) if r["type"] in ("assistant.turn_start", "assistant.turn_end")]
    assert records == ["assistant.turn_start", "assistant.turn_end"] * len(starts), records
    saved = [e["message"] for e in run.transcript() if e.get("type") == "message"]
    assert not any(m.get("stopReason") == "aborted" for m in saved), "an aborted message was persisted"
    return ends[-1]


def second_request(server: WireServer, stderr: list[str]) -> bool:
    return len(server.requests) >= 2


def test_the_deadline_mid_request_ends_the_turn_with_timeout(tmp_path: Path) -> None:
    """timeout-minutes 0.15: the soft deadline is about 8 s after start, normally after the first
    turn, while the second request waits for the model. On a loaded machine the first turn may
    still be running then: whichever turn the deadline cuts is reported, not counted."""
    run = run_fault(tmp_path, [tool_turn("echo hi"), SLOW], config={"timeout-minutes": 0.15})
    result = check_contract(run, 1, "timeout")
    last = assert_turns_paired(run, "timeout")
    assert last["turn"] in (1, 2) and result["turns"] == last["turn"] - 1


def test_a_budget_abort_mid_tool_batch_ends_the_turn_with_its_stop_reason(tmp_path: Path) -> None:
    two_calls = wire.stream_reply(
        text="Two.", tool_calls=[("bash", {"command": "echo a"}), ("bash", {"command": "echo b"})], use=wire.usage()
    )
    config = {"harness": {"budget": {"max-tool-calls": 1}}}
    run = run_fault(tmp_path, [two_calls, final_turn()], config=config)
    result = check_contract(run, 1, "max_tool_calls")
    last = assert_turns_paired(run, "max_tool_calls")
    assert last["turn"] == 1 and last["input_tokens"] > 0 and result["turns"] == 0


def test_a_cancel_mid_stream_ends_the_turn_with_cancelled(tmp_path: Path) -> None:
    stalled = dataclasses.replace(
        wire.stream_reply(text="A long answer coming", use=wire.usage()), stall_after=2, stall_s=60
    )
    run = run_fault(tmp_path, [stalled], send=signal.SIGINT, when=lambda server, err: bool(server.requests))
    check_contract(run, 1, "cancelled")
    last = assert_turns_paired(run, "cancelled")
    assert last["turn"] == 1
