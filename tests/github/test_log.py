"""The step log: untrusted lines can never act as workflow commands; the action's own commands
always do; turns become groups; steering and budget records become capped warnings."""

from __future__ import annotations

import io
import json

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
        log.write(f"> **Turn {turn}**: 1 in / 1 out\n")
    log.write(_record("session_end"))
    log.finish()
    runner = simulate(out.getvalue())
    assert [(c.name, c.data) for c in runner.processed] == [
        ("group", "Turn 1"),
        ("endgroup", ""),
        ("group", "Turn 2"),
        ("endgroup", ""),
    ]
    text = out.getvalue()
    assert text.index("::endgroup::") < text.index("> **Turn 1**") < text.index("::group::Turn 2")


def test_an_interrupted_turn_closes_its_group_at_agent_end() -> None:
    out = io.StringIO()
    log = WorkflowLog(out)
    log.write(_record("turn_start", turn=1))
    log.write(_record("agent_end"))
    log.write(_record("session_end"))
    log.finish()
    names = [c.name for c in simulate(out.getvalue()).processed]
    assert names == ["group", "endgroup"]


def test_steering_and_budget_records_become_warnings() -> None:
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
        "aw-harness: budget exceeded",
        "aw-harness: warning",
        "aw-harness: warning",
    ]
    assert warnings[0].data == "token steering notice at 80% sent to the agent: Wrap up soon."
    assert warnings[1].data == "effective tokens budget exceeded: 1200 of 1000; the run was stopped"
    assert warnings[3].data == "cli-proxy: false is not supported"


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
