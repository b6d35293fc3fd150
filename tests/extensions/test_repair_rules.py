"""Every history repair case, on plain message lists."""

from __future__ import annotations

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from aw_action.extensions.repair_rules import (
    INTERRUPTED,
    MAX_RESULT_CHARS,
    classify_error,
    clean_result_text,
    progress_summary,
    repair_history,
    sanitize_text,
)


def call(id_: str, name: str = "bash", raw: str | None = None, **args: object) -> ToolCall:
    return ToolCall(id=id_, name=name, arguments=dict(args), raw_arguments=raw)


def answer(*calls: ToolCall, text: str = "", stop: str = "toolUse") -> AssistantMessage:
    content: list[TextContent | ToolCall] = [TextContent(text=text)] if text else []
    return AssistantMessage(content=[*content, *calls], stop_reason=stop)  # type: ignore[arg-type]


def result(id_: str, text: str = "ok", name: str = "bash") -> ToolResultMessage:
    return ToolResultMessage(tool_call_id=id_, tool_name=name, content=[TextContent(text=text)])


def shape(messages: list[AnyMessage]) -> list[str]:
    out = []
    for m in messages:
        if isinstance(m, AssistantMessage):
            out.append("A:" + ",".join(c.id for c in m.tool_calls))
        elif isinstance(m, ToolResultMessage):
            out.append("R:" + m.tool_call_id)
        else:
            out.append("U")
    return out


def test_valid_history_is_left_alone() -> None:
    history: list[AnyMessage] = [
        UserMessage.of("task"),
        answer(call("a")),
        result("a"),
        answer(text="done", stop="stop"),
    ]
    fixed, fixes = repair_history(history)
    assert fixes == [] and fixed == history


def test_call_without_result_gets_a_synthetic_error_result() -> None:
    fixed, fixes = repair_history([UserMessage.of("t"), answer(call("a"), call("b")), result("a")])
    assert shape(fixed) == ["U", "A:a,b", "R:a", "R:b"]
    synthetic = fixed[-1]
    assert isinstance(synthetic, ToolResultMessage) and synthetic.is_error and synthetic.text == INTERRUPTED
    assert [(f.action, f.tool_call_id) for f in fixes] == [("synthetic_tool_result", "b")]


def test_result_without_call_is_dropped() -> None:
    fixed, fixes = repair_history([UserMessage.of("t"), result("ghost"), answer(call("a")), result("a"), result("x")])
    assert shape(fixed) == ["U", "A:a", "R:a"]
    assert [(f.action, f.tool_call_id) for f in fixes] == [
        ("orphan_tool_result_dropped", "ghost"),
        ("orphan_tool_result_dropped", "x"),
    ]


def test_duplicate_result_is_dropped_and_misplaced_result_moved_up() -> None:
    history: list[AnyMessage] = [
        answer(call("a"), call("b")),
        result("a"),
        UserMessage.of("steer"),
        result("b"),
        result("a"),
    ]
    fixed, fixes = repair_history(history)
    assert shape(fixed) == ["A:a,b", "R:a", "R:b", "U"]
    assert [f.action for f in fixes] == ["tool_result_moved", "duplicate_tool_result_dropped"]


def test_results_of_a_failed_answer_do_not_count_and_failed_answers_stay() -> None:
    failed = answer(call("z"), stop="error")
    fixed, fixes = repair_history([answer(call("a")), result("a"), failed, result("z")])
    assert shape(fixed) == ["A:a", "R:a", "A:z"]
    assert fixed[2] is failed
    assert [(f.action, f.tool_call_id) for f in fixes] == [("orphan_tool_result_dropped", "z")]


def test_invalid_json_arguments_become_an_empty_object() -> None:
    fixed, fixes = repair_history([answer(call("a", raw='{"command": "ls')), result("a", "Invalid JSON arguments")])
    tool_call = fixed[0].tool_calls[0]  # type: ignore[union-attr]
    assert tool_call.raw_arguments is None and tool_call.arguments == {}
    assert [f.action for f in fixes] == ["invalid_tool_arguments"]


def test_invalid_utf8_and_control_garbage_in_results_are_sanitised() -> None:
    fixed, fixes = repair_history([answer(call("a")), result("a", "caf\udce9 \x1b[31mred\x1b[0m\x00 end\tok\n")])
    assert fixed[1].text == "caf\ufffd red end\tok\n"  # type: ignore[union-attr]
    fixed[1].model_dump_json().encode("utf-8")  # encodable now
    assert [f.action for f in fixes] == ["sanitized_tool_result"]


def test_repair_is_idempotent() -> None:
    broken: list[AnyMessage] = [answer(call("a", raw="{"), call("b")), result("c"), result("a", "\udcff")]
    once, _ = repair_history(broken)
    twice, fixes = repair_history(once)
    assert fixes == [] and twice == once


def test_sanitize_counts_changes() -> None:
    assert sanitize_text("clean\ttext\r\n") == ("clean\ttext\r\n", 0)
    assert sanitize_text("\x07\x07")[1] == 2


def test_oversized_results_are_capped() -> None:
    text, done = clean_result_text("x" * (MAX_RESULT_CHARS + 10))
    assert done == ["truncated_tool_result"] and text.endswith("[output truncated by the harness: 10 more characters]")


def test_error_classes() -> None:
    assert classify_error("transient", "503") == "transient"
    assert classify_error("overflow", "") == "overflow"
    assert classify_error("fatal", "prompt is too long: 210000 tokens > 200000 maximum") == "overflow"
    assert classify_error("fatal", "messages.3: tool_use ids were found without tool_result blocks") == "history"
    assert classify_error("fatal", "Invalid type for 'messages[2].tool_calls'") == "history"
    assert classify_error(None, "Connection reset: ECONNRESET") == "transient"
    assert classify_error("fatal", "invalid x-api-key") == "fatal"
    assert classify_error("aborted", "timeout") == "fatal"


def test_progress_summary_lists_tools_files_and_last_note() -> None:
    history: list[AnyMessage] = [
        UserMessage.of("task"),
        answer(call("a", name="write", path="report.md", content="x"), text="writing"),
        result("a"),
        answer(call("b"), call("c"), text="checking"),
    ]
    summary = progress_summary(history)
    assert "2 model response(s)" in summary and "bash x2" in summary and "write x1" in summary
    assert "report.md" in summary and summary.endswith('Your last note: "checking"')
