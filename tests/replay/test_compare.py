"""What a comparison of tool results leaves out: each run's own paths and ids, and the patterns
the recording names (times, durations, spill-log names); what it keeps: everything else."""

from __future__ import annotations

from aw_action.ai.types import TextContent, ToolResultMessage
from aw_action.replay.compare import MAX_DIFF_LINES, Normaliser, Substitution, difference, rendered
from aw_action.sinks.replay_format import VARYING_PATTERNS

RECORDED = Normaliser(
    {"workspace": "/home/runner/work/r/r", "output-dir": "/tmp/gh-aw", "run-id": "123"}, VARYING_PATTERNS
)
REPLAYED = Normaliser({"workspace": "/home/me/src/r", "output-dir": "/tmp/aw-replay/x"}, VARYING_PATTERNS)


def result(text: str, **details: object) -> ToolResultMessage:
    return ToolResultMessage(tool_call_id="c1", tool_name="bash", content=[TextContent(text=text)], details=details)


def test_each_runs_paths_times_and_durations_compare_equal() -> None:
    recorded = result(
        "/home/runner/work/r/r/src/a.py: 3 passed in 0.53s at 2026-01-02T03:04:05Z (12:00:01)\n"
        "[Full output: /tmp/gh-aw/bash-0123456789abcdef.log]",
        exit_code=0,
    )
    replayed = result(
        "/home/me/src/r/src/a.py: 3 passed in 1.20s at 2026-06-07T08:09:10.123Z (08:30:59)\n"
        "[Full output: /tmp/aw-replay/x/bash-fedcba9876543210.log]",
        exit_code=0,
    )
    assert difference(rendered(recorded, RECORDED), rendered(replayed, REPLAYED)) is None


def test_a_changed_exit_code_or_text_is_a_difference() -> None:
    diff = difference(rendered(result("ok", exit_code=0), RECORDED), rendered(result("ok", exit_code=1), REPLAYED))
    assert diff is not None and "-exit_code: 0" in diff and "+exit_code: 1" in diff
    diff = difference(rendered(result("3 passed"), RECORDED), rendered(result("2 passed"), REPLAYED))
    assert diff is not None and "-3 passed" in diff and "+2 passed" in diff and diff.startswith("--- recorded")


def test_short_values_are_not_replaced() -> None:
    assert "123" in RECORDED("exit 123")


def test_a_long_diff_is_cut() -> None:
    a = "\n".join(f"line {i}" for i in range(1000))
    b = "\n".join(f"LINE {i}" for i in range(1000))
    diff = difference(a, b) or ""
    assert len(diff.splitlines()) == MAX_DIFF_LINES + 1 and diff.endswith("more diff lines")


def test_paths_are_moved_in_one_pass_and_throughout_a_json_value() -> None:
    moves = Substitution({"/work/ws": "/tmp/aw-tools-1/ws", "/tmp/aw-tools-1": "/tmp/aw-tools-2", "/x": "/y"})
    assert moves("/work/ws and /tmp/aw-tools-1 and /x") == "/tmp/aw-tools-1/ws and /tmp/aw-tools-2 and /x"
    value = {"command": "cat /work/ws/a", "paths": ["/work/ws/b", 3], "n": None}
    assert moves.within(value) == {
        "command": "cat /tmp/aw-tools-1/ws/a",
        "paths": ["/tmp/aw-tools-1/ws/b", 3],
        "n": None,
    }
