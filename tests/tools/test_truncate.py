"""Truncation limits and notation shared by the built-in tools (Pi's ``truncate.ts`` semantics)."""

from __future__ import annotations

from aw_action.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    format_size,
    truncate_head,
    truncate_head_tail,
    truncate_tail,
)


def test_defaults_match_pi() -> None:
    assert DEFAULT_MAX_LINES == 2000
    assert DEFAULT_MAX_BYTES == 50 * 1024


def test_format_size() -> None:
    assert format_size(0) == "0B"
    assert format_size(1023) == "1023B"
    assert format_size(1024) == "1.0KB"
    assert format_size(DEFAULT_MAX_BYTES) == "50.0KB"
    assert format_size(60_000) == "58.6KB"
    assert format_size(1024 * 1024) == "1.0MB"
    assert format_size(3 * 1024 * 1024 // 2) == "1.5MB"


def test_head_within_limits_is_untouched() -> None:
    t = truncate_head("a\nb\nc")
    assert (t.content, t.truncated, t.truncated_by) == ("a\nb\nc", False, None)
    assert (t.total_lines, t.output_lines, t.total_bytes, t.output_bytes) == (3, 3, 5, 5)


def test_head_by_lines_keeps_first_lines() -> None:
    text = "\n".join(str(i) for i in range(1, 3001))
    t = truncate_head(text)
    assert t.truncated and t.truncated_by == "lines"
    assert t.total_lines == 3000 and t.output_lines == 2000
    assert t.content == "\n".join(str(i) for i in range(1, 2001))


def test_head_by_bytes_keeps_whole_lines_only() -> None:
    t = truncate_head("aa\nbb\ncc", max_bytes=6)
    assert t.content == "aa\nbb"
    assert (t.truncated_by, t.output_lines, t.output_bytes, t.total_bytes) == ("bytes", 2, 5, 8)


def test_head_counts_utf8_bytes() -> None:
    t = truncate_head("éé\nx", max_bytes=4)  # "éé" is 4 bytes; "\nx" would make 6
    assert t.content == "éé" and t.truncated_by == "bytes"


def test_head_first_line_over_limit_keeps_nothing() -> None:
    t = truncate_head("abcdef\nx", max_bytes=3)
    assert t.content == "" and t.first_line_exceeds_limit
    assert (t.truncated, t.truncated_by, t.output_lines) == (True, "bytes", 0)


def test_tail_by_lines_keeps_last_lines() -> None:
    t = truncate_tail("1\n2\n3\n4\n5", max_lines=2)
    assert t.content == "4\n5"
    assert (t.truncated_by, t.total_lines, t.output_lines) == ("lines", 5, 2)


def test_tail_by_bytes() -> None:
    t = truncate_tail("aa\nbb\ncc", max_bytes=6)
    assert (t.content, t.truncated_by, t.last_line_partial) == ("bb\ncc", "bytes", False)


def test_tail_keeps_end_of_oversized_last_line() -> None:
    t = truncate_tail("x\nabcdef", max_bytes=3)
    assert (t.content, t.last_line_partial, t.output_lines, t.output_bytes) == ("def", True, 1, 3)


def test_tail_partial_line_starts_on_a_character_boundary() -> None:
    t = truncate_tail("ééé", max_bytes=3)  # 6 bytes; the last 3 start mid-character
    assert t.content == "é" and t.output_bytes == 2


def test_summary_is_json_ready_and_omits_content() -> None:
    summary = truncate_tail("a\nb\nc", max_lines=1).summary()
    assert "content" not in summary
    assert summary["truncated"] is True and summary["output_lines"] == 1


def test_head_tail_leaves_output_within_both_limits_alone() -> None:
    text = "\n".join(["x" * 30] * 256)  # 256 lines, 7935 bytes
    cut = truncate_head_tail(text)
    assert (cut.truncated, cut.head, cut.tail, cut.omitted_lines) == (False, text, "", 0)


def test_head_tail_by_lines_keeps_half_the_lines_at_each_end() -> None:
    cut = truncate_head_tail("\n".join(str(i) for i in range(1, 1001)))
    assert cut.head.split("\n") == [str(i) for i in range(1, 129)]
    assert cut.tail.split("\n") == [str(i) for i in range(873, 1001)]
    assert (cut.total_lines, cut.head_lines, cut.tail_lines, cut.omitted_lines) == (1000, 128, 128, 744)


def test_head_tail_by_bytes_gives_the_tail_what_the_head_left() -> None:
    lines = [f"{i:099d}" for i in range(300)]  # 100 bytes per line with its newline
    cut = truncate_head_tail("\n".join(lines), max_lines=256, max_bytes=1000)
    assert cut.head.split("\n") == lines[:5]  # 5 * 100 - 1 bytes <= 500
    assert cut.tail.split("\n") == lines[-5:]  # 1000 - 499 bytes left: 5 more lines
    assert len(cut.head.encode()) + len(cut.tail.encode()) <= 1000


def test_head_tail_of_a_long_first_line_keeps_its_start() -> None:
    text = "€" * 4000 + "\n" + "\n".join(["y"] * 10)
    cut = truncate_head_tail(text, max_bytes=1024)
    assert cut.head_partial and cut.head == "€" * 170  # 510 bytes: a whole character less than 512
    assert cut.tail.split("\n") == ["y"] * 10 and not cut.tail_partial


def test_head_tail_of_one_huge_line_keeps_both_ends_on_character_boundaries() -> None:
    text = "a" + "€" * 10000 + "z"
    cut = truncate_head_tail(text, max_bytes=1000)
    assert cut.head_partial and cut.tail_partial and cut.omitted_lines == 0
    assert cut.head.startswith("a€") and set(cut.head[1:]) == {"€"}
    assert cut.tail.endswith("€z") and set(cut.tail[:-1]) == {"€"}
    assert len(cut.head.encode()) <= 500 and len(cut.tail.encode()) <= 1000 - len(cut.head.encode())
