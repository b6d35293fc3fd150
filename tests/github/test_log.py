"""The step log: untrusted lines can never act as workflow commands; the action's own commands
always do; turns become groups; steering and budget records become capped warnings."""

from __future__ import annotations

import io
import json
from pathlib import Path

from aw_action.github.log import WorkflowLog
from aw_action.run.redact import Redactor
from tests.github.runner_sim import simulate

INJECTIONS = [
    "::warning::pwned",
    "  ::add-mask::x",
    "::set-output name=conclusion::success",
    "text ##[error]legacy form anywhere in a line",
    "::stop-commands::attacker",
    "::endgroup::",
]


def _record(event: str, **fields: object) -> str:
    return json.dumps({"event": event, **fields}) + "\n"


def test_untrusted_lines_issue_no_command_and_trusted_ones_all_do() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    log.mask("super-secret-value")
    for text in INJECTIONS:
        log.write(text + "\n")
        log.warning(f"ours after {text!r}")
    log.finish()
    runner = simulate(out.getvalue())
    assert [c.name for c in runner.processed] == ["add-mask"] + ["warning"] * len(INJECTIONS)
    assert all(c.data.startswith("ours after") for c in runner.named("warning"))
    assert runner.stop_token is None, "the log must end with command processing resumed"


def test_partial_writes_are_joined_into_lines() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    print("::warning::", end="", file=log)
    print("split across writes", file=log)
    log.write("no newline at the end ::error::x")
    log.finish()
    runner = simulate(out.getvalue())
    assert runner.processed == []
    assert "::warning::split across writes" in runner.lines_while_stopped
    assert "no newline at the end ::error::x" in runner.lines_while_stopped


def test_lines_are_redacted_before_they_are_written() -> None:
    out = io.StringIO()
    log = WorkflowLog(out, Redactor(["sk-ant-123456789"]))
    log.write("key is sk-ant-123456789\n")
    log.finish()
    assert "sk-ant-123456789" not in out.getvalue()
    assert "key is ***" in out.getvalue()


def test_each_turn_is_a_group_and_the_turn_line_stays_outside() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    log.write(_record("session_start"))
    for turn in (1, 2):
        log.write(_record("turn_start", turn=turn))
        log.write(_record("tool_end", tool="bash"))
        log.write(_record("turn_end", turn=turn))
        log.write(f"Turn {turn}: bash | 1 in / 1 out\n")
    log.write(_record("session_end"))
    log.write('{"conclusion": "success", "stop_reason": "completed"}\n')
    log.write("aw-harness: ✅ success\n")
    log.finish()
    runner = simulate(out.getvalue())
    assert [(c.name, c.data) for c in runner.processed] == [
        ("group", "Records (JSONL)"),
        ("endgroup", ""),
        ("group", "Turn 1"),
        ("endgroup", ""),
        ("group", "Turn 2"),
        ("endgroup", ""),
        ("group", "Records (JSONL)"),
        ("endgroup", ""),
    ]
    text = out.getvalue()
    assert text.index("::group::Turn 1") < text.index("::endgroup::\n", text.index("::group::Turn 1"))
    assert text.index("Turn 1: bash") < text.index("::group::Turn 2")
    visible = _outside_groups(text)
    assert visible == ["Turn 1: bash | 1 in / 1 out", "Turn 2: bash | 1 in / 1 out", "aw-harness: ✅ success"]


def _outside_groups(text: str) -> list[str]:
    """The lines a reader sees with every group folded (workflow commands left out)."""
    shown, depth = [], 0
    for line in text.splitlines():
        if line.startswith("::group::"):
            depth += 1
        elif line == "::endgroup::":
            depth -= 1
        elif depth == 0 and not line.startswith("::"):
            shown.append(line)
    return shown


def test_with_log_format_file_the_records_go_to_a_file_and_the_log_is_text(tmp_path: Path) -> None:
    out = io.StringIO()
    log = WorkflowLog(out, Redactor(["sk-ant-123456789"]))
    log.use_records_file(tmp_path / "events.jsonl")
    log.write(_record("session_start", model="m"))
    log.write(_record("turn_start", turn=1))
    log.write("  → [1] bash: $ echo sk-ant-123456789\n")
    log.write(_record("turn_end", turn=1))
    log.write("Turn 1: bash | 1 in / 1 out\n")
    log.write(_record("warning", message="careful"))
    log.finish()
    assert "{" not in out.getvalue(), "no record in the log"
    runner = simulate(out.getvalue())
    assert [(c.name, c.data) for c in runner.processed if c.name != "warning"] == [
        ("group", "Turn 1"),
        ("endgroup", ""),
    ]
    assert [c.data for c in runner.named("warning")] == ["careful"]
    records = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert [r["event"] for r in records] == ["session_start", "turn_start", "turn_end", "warning"]
    assert "  → [1] bash: $ echo ***" in out.getvalue()


def test_an_interrupted_turn_closes_its_group_at_agent_end() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    log.write(_record("turn_start", turn=1))
    log.write(_record("agent_end"))
    log.write("Turn 1: not started (the run stopped: cancelled)\n")
    log.write(_record("session_end"))
    log.finish()
    processed = [(c.name, c.data) for c in simulate(out.getvalue()).processed]
    assert processed == [("group", "Turn 1"), ("endgroup", ""), ("group", "Records (JSONL)"), ("endgroup", "")]


def test_steering_and_warning_records_become_warnings() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    log.write(_record("steering", type="token", threshold=80, kind="budget", message="Wrap up soon."))
    log.write(_record("budget_exceeded", budget="effective_tokens", used=1200.0, limit=1000.0, forced_termination=True))
    log.write(_record("warning", message="extension x skipped"))
    log.write("aw-harness: warning: cli-proxy: false is not supported\n")
    log.write(_record("turn_end", turn=1))
    log.finish()
    warnings = simulate(out.getvalue()).named("warning")
    assert [w.properties["title"] for w in warnings] == [
        "aw-harness: steering",
        "aw-harness: warning",
        "aw-harness: warning",
    ], "a budget stop is explained once, by the closing annotation"
    assert warnings[0].data == "token steering notice at 80% sent to the agent: Wrap up soon."
    assert warnings[2].data == "cli-proxy: false is not supported"


def test_annotations_stay_within_the_per_step_cap() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    for i in range(15):
        log.warning(f"w{i}")
    log.error("e0")
    log.finish()
    runner = simulate(out.getvalue())
    warnings = [c.data for c in runner.named("warning")]
    assert len(warnings) == 10
    assert warnings[:9] == [f"w{i}" for i in range(9)]
    assert warnings[9].startswith("6 more warning(s)")
    assert [c.data for c in runner.named("error")] == ["e0"]
