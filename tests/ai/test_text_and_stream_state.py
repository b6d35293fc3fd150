"""Model output cannot break a record (issue 10, item 3): text cleaning and linear streaming."""

from __future__ import annotations

import json

from aw_action.ai.inert_line import one_line
from aw_action.ai.stream_state import StreamState, parse_arguments
from aw_action.ai.text import clean_message, clean_text, clean_value, is_clean
from aw_action.ai.types import AssistantMessage, TextContent, ThinkingContent, ToolCall


def test_lone_surrogates_become_replacement_characters() -> None:
    bad = json.loads('"a\\ud800b\\udfffc"')
    assert not is_clean(bad)
    assert clean_text(bad) == "a\ufffdb\ufffdc"
    assert clean_text(bad).encode("utf-8")


def test_a_surrogate_pair_split_across_deltas_is_joined_not_replaced() -> None:
    high, low = json.loads('"\\ud83d"'), json.loads('"\\ude00"')
    assert clean_text("x" + high + low) == "x\U0001f600"


def test_clean_text_keeps_control_characters_and_returns_clean_text_unchanged() -> None:
    text = "tab\tnul\x00bell\x07é"
    assert clean_text(text) is text


def test_clean_value_cleans_keys_and_nested_values_and_bounds_depth() -> None:
    bad = json.loads('{"k\\ud800": ["v\\udc00", {"x": "\\ud801"}], "n": 1}')
    out = clean_value(bad)
    assert json.dumps(out, ensure_ascii=False).encode("utf-8")
    assert out == {"k\ufffd": ["v\ufffd", {"x": "\ufffd"}], "n": 1}
    deep: list[object] = []
    node = deep
    for _ in range(600):
        child: list[object] = []
        node.append(child)
        node = child
    assert "nested too deeply" in json.dumps(clean_value(deep))


def test_clean_message_covers_every_string_a_provider_produces() -> None:
    s = json.loads('"\\ud800"')
    message = AssistantMessage(
        content=[
            TextContent(text=s),
            ThinkingContent(thinking=s, signature=s),
            ToolCall(id=s, name=s, arguments={"cmd": s}, raw_arguments=s),
        ],
        error_message=s,
    )
    dumped = json.dumps(clean_message(message).model_dump(mode="json"), ensure_ascii=False)
    assert dumped.encode("utf-8") and "\ufffd" in dumped


def test_deeply_nested_tool_arguments_are_malformed_not_a_crash() -> None:
    text = "[" * 100_000 + "]" * 100_000
    assert parse_arguments(text) == ({}, text)


def test_a_delta_partial_shows_the_text_as_of_that_delta_even_when_read_later() -> None:
    state = StreamState(AssistantMessage())
    first = state.text(0, "Hello")
    second = state.text(0, ", world")
    thinking = state.thinking(1, "hmm")
    assert first is not None and second is not None and thinking is not None
    assert first.partial.text == "Hello"
    assert second.partial.text == "Hello, world"
    assert [type(c).__name__ for c in first.partial.content] == ["TextContent"]
    assert state.finish().text == "Hello, world"
    assert first.partial.text == "Hello"  # built once, then kept


def test_streamed_tool_arguments_join_once() -> None:
    state = StreamState(AssistantMessage())
    state.tool_start("t", "call-1", "bash")
    for piece in ('{"comm', 'and": "ls', ' -la"}'):
        state.tool_args("t", piece)
    [call] = state.finish().tool_calls
    assert call.arguments == {"command": "ls -la"} and call.raw_arguments is None


def test_one_line_escapes_line_breaks_and_control_characters_and_keeps_the_rest() -> None:
    assert one_line("plain é text") == "plain é text"
    assert one_line("a\nb\r\tc\x00") == "a\\nb\\r\\tc\\x00"
    assert one_line("x\u2028y\ud800") == "x\\u2028y\ufffd"
    assert "\n" not in one_line("\n" * 5)
