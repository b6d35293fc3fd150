"""Every history repair case, on plain message lists."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from aw_action.agent.events import AnyMessage
from aw_action.ai.types import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from aw_action.extensions.repair_rules import (
    INTERRUPTED,
    MAX_RESULT_CHARS,
    Fix,
    HistoryCheck,
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


_PIECES = ["turn"] * 6 + [
    "two calls",
    "user",
    "failed",
    "late",
    "orphan",
    "no result",
    "duplicate",
    "dirty",
    "bad args",
]


def _piece(piece: str, a: str, b: str) -> list[AnyMessage]:
    pieces: dict[str, list[AnyMessage]] = {
        "turn": [answer(call(a)), result(a)],
        "two calls": [answer(call(a), call(b)), result(b), result(a)],
        "user": [UserMessage.of("u")],
        "failed": [answer(call(a), stop="error")],
        "late": [answer(call(a)), answer(stop="error"), result(a)],
        "orphan": [result(a)],
        "no result": [answer(call(a))],
        "duplicate": [answer(call(a)), result(a), result(a)],
        "dirty": [answer(call(a)), result(a, text="bad \x1b[31m")],
        "bad args": [answer(call(a, raw="{not json")), result(a)],
    }
    return pieces[piece]


def _history(pieces: list[str]) -> list[AnyMessage]:
    """A history made of whole turns, with now and then a piece that needs a repair."""
    return [m for n, piece in enumerate(pieces) for m in _piece(piece, f"c{n}a", f"c{n}b")]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=16),
    st.lists(st.integers(min_value=0, max_value=40), max_size=10),
    st.lists(st.booleans(), max_size=10),
)
def test_the_incremental_check_answers_as_repair_history(pieces: list[str], cuts: list[int], fresh: list[bool]) -> None:
    """A growing history (and now and then a replaced one: new objects, or a shorter list) gets
    exactly ``repair_history``'s answer at every step, whatever was remembered before."""
    history = _history(pieces)
    check = HistoryCheck()
    for step, cut in enumerate([*sorted(cuts), len(history)]):
        seen = history[:cut]
        if step < len(fresh) and fresh[step]:
            seen = [m.model_copy() for m in seen]
        expected = _comparable(repair_history(seen))
        assert _comparable(check(seen)) == expected
        assert _comparable(check(seen)) == expected  # asked again: the same answer
    half = history[: len(history) // 2]
    assert _comparable(check(half)) == _comparable(repair_history(half))


def _comparable(answer: tuple[list[AnyMessage], list[Fix]]) -> tuple[list[dict[str, object]], list[Fix]]:
    """A repair's answer without the timestamps a synthetic result is made with."""
    fixed, fixes = answer
    return [m.model_dump(exclude={"timestamp"}) for m in fixed], fixes


def test_the_incremental_check_walks_only_what_is_new() -> None:
    """A sound prefix is not walked again: a message changed in place inside it (which a real
    history never does) goes unseen, while the same change in a new history is found."""
    history: list[AnyMessage] = [UserMessage.of("t"), answer(call("a")), result("a"), answer(call("b")), result("b")]
    check = HistoryCheck()
    assert check(history) == (history, [])
    history[2].content = [TextContent(text="\x1b[31mred")]
    assert check([*history, answer(text="done", stop="stop")])[1] == []
    fresh = [m.model_copy() for m in history]
    assert [f.action for f in check(fresh)[1]] == ["sanitized_tool_result"]
