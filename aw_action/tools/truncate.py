"""Line- and byte-bounded truncation of tool output, as Pi's ``truncate.ts`` does it.

Two independent limits apply and whichever is hit first wins: ``DEFAULT_MAX_LINES`` lines and
``DEFAULT_MAX_BYTES`` UTF-8 bytes. Head truncation (file reads: the model wants the start) keeps
whole lines only; tail truncation (command output: errors and results are at the end) keeps whole
lines too, except that when the very last line alone is over the byte limit it keeps the end of
that line. Lines are the pieces of ``text.split("\\n")``, so the byte count of a kept block is
the sum of its lines plus one byte per separating newline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024

TruncatedBy = Literal["lines", "bytes"]


@dataclass(frozen=True)
class Truncation:
    """The outcome of one truncation.

    ``output_lines`` counts the lines kept (a partial last line counts as one). ``truncated_by``
    is None exactly when ``truncated`` is False. ``first_line_exceeds_limit`` (head only) means
    nothing could be kept because the first line alone is over ``max_bytes``;
    ``last_line_partial`` (tail only) means ``content`` is the end of a single over-long line.
    """

    content: str
    truncated: bool
    truncated_by: TruncatedBy | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    max_lines: int
    max_bytes: int
    last_line_partial: bool = False
    first_line_exceeds_limit: bool = False

    def summary(self) -> dict[str, Any]:
        """Everything but ``content``: a JSON-ready record for tool result details."""
        return {
            "truncated": self.truncated,
            "truncated_by": self.truncated_by,
            "total_lines": self.total_lines,
            "total_bytes": self.total_bytes,
            "output_lines": self.output_lines,
            "output_bytes": self.output_bytes,
            "last_line_partial": self.last_line_partial,
            "first_line_exceeds_limit": self.first_line_exceeds_limit,
        }


def format_size(num_bytes: int) -> str:
    """``512B``, ``50.0KB``, ``1.5MB``: the size notation used in every truncation notice."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    return f"{num_bytes / (1024 * 1024):.1f}MB"


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _untruncated(text: str, lines: int, size: int, max_lines: int, max_bytes: int) -> Truncation:
    return Truncation(text, False, None, lines, size, lines, size, max_lines, max_bytes)


def truncate_head(text: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES) -> Truncation:
    """Keep the longest run of whole lines from the start that fits both limits."""
    total_bytes = _utf8_len(text)
    lines = text.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _untruncated(text, len(lines), total_bytes, max_lines, max_bytes)

    if _utf8_len(lines[0]) > max_bytes:
        return Truncation(
            "", True, "bytes", len(lines), total_bytes, 0, 0, max_lines, max_bytes,
            first_line_exceeds_limit=True,
        )  # fmt: skip

    kept: list[str] = []
    used = 0
    by: TruncatedBy = "lines"
    for line in lines[:max_lines]:
        cost = _utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            by = "bytes"
            break
        kept.append(line)
        used += cost
    content = "\n".join(kept)
    return Truncation(content, True, by, len(lines), total_bytes, len(kept), used, max_lines, max_bytes)


def _utf8_suffix(text: str, max_bytes: int) -> str:
    """The longest suffix of ``text`` that is at most ``max_bytes`` UTF-8 bytes."""
    data = text.encode("utf-8", "surrogatepass")
    start = max(0, len(data) - max_bytes)
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1  # skip continuation bytes: start on a character boundary
    return data[start:].decode("utf-8", "surrogatepass")


def truncate_tail(text: str, *, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES) -> Truncation:
    """Keep the longest run of whole lines from the end that fits both limits.

    If the last line alone is over ``max_bytes``, keep its last ``max_bytes`` bytes instead
    (``last_line_partial``), so the model still sees how the output ended.
    """
    total_bytes = _utf8_len(text)
    lines = text.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return _untruncated(text, len(lines), total_bytes, max_lines, max_bytes)

    kept: list[str] = []
    used = 0
    by: TruncatedBy = "lines"
    partial = False
    for line in reversed(lines):
        if len(kept) >= max_lines:
            break
        cost = _utf8_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            by = "bytes"
            if not kept:
                tail = _utf8_suffix(line, max_bytes)
                kept.append(tail)
                used = _utf8_len(tail)
                partial = True
            break
        kept.append(line)
        used += cost
    kept.reverse()
    content = "\n".join(kept)
    return Truncation(
        content, True, by, len(lines), total_bytes, len(kept), used, max_lines, max_bytes,
        last_line_partial=partial,
    )  # fmt: skip
