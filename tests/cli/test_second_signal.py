"""A second stop signal never changes how a cancelled run ends (docs/architecture.md, "Stops"),
whichever signals come and however close together: the real CLI, the real ``anthropic`` SDK
and a local server (``tests/faults/matrix.py``), every pair of SIGINT, SIGTERM and SIGHUP the
runner or a terminal sends, at intervals from none to a second.

Cancelled mid-request (a model that takes a minute to answer) the run winds down in tens of
milliseconds, so the second signal often lands while the process is already ending: the window
in which CPython's finalisation had put the signals back to their default action and a second
signal killed the process (``-15``) after its result was out (``run/cancel.ignore_stop_signals``).
Every case checks the whole fault contract (``check_contract``: exit 1 and the result saying
``cancelled``, every JSONL line parses, the step summary and provenance written, no process
left behind) and that ``session.jsonl`` holds the session.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.faults.matrix import FaultRun, check_contract, run_fault, tool_turn
from tests.servers.wire import Reply, WireServer

SLOW = Reply(delay_s=60, chunks=[b"{}"])
"""A model that does not answer within the test: the run is mid-request when it is stopped."""
GAPS_S = [0.0, 0.01, 0.1, 0.5, 1.0]
PAIRS = [
    (signal.SIGINT, signal.SIGTERM),
    (signal.SIGTERM, signal.SIGINT),
    (signal.SIGHUP, signal.SIGTERM),
    (signal.SIGINT, signal.SIGHUP),
]


def second_request(server: WireServer, stderr: list[str]) -> bool:
    return len(server.requests) >= 2


def tool_running(server: WireServer, stderr: list[str]) -> bool:
    return any('"tool_start"' in line for line in stderr)


def assert_cancelled_with_records(run: FaultRun) -> None:
    result = check_contract(run, 1, "cancelled")
    assert result["conclusion"] == "cancelled"
    transcript = run.transcript()
    assert transcript and transcript[0]["type"] == "session", "session.jsonl holds the session"


@pytest.mark.parametrize("gap_s", GAPS_S)
@pytest.mark.parametrize(("first", "second"), PAIRS, ids=lambda sig: sig.name)
def test_a_second_signal_mid_request_keeps_exit_1(
    tmp_path: Path, first: signal.Signals, second: signal.Signals, gap_s: float
) -> None:
    run = run_fault(
        tmp_path,
        [tool_turn("echo hi"), SLOW],
        send=first,
        when=second_request,
        second=second,
        second_after_s=gap_s,
    )
    assert_cancelled_with_records(run)


@pytest.mark.parametrize("gap_s", GAPS_S)
def test_sigint_then_sigterm_mid_tool_keeps_exit_1(tmp_path: Path, gap_s: float) -> None:
    run = run_fault(
        tmp_path,
        [tool_turn("sleep 100"), SLOW],
        send=signal.SIGINT,
        when=tool_running,
        second=signal.SIGTERM,
        second_after_s=gap_s,
    )
    assert_cancelled_with_records(run)
