"""Line- and byte-bounded truncation of tool output, as Pi's ``truncate.ts`` does it.

Two independent limits apply and whichever is hit first wins: ``DEFAULT_MAX_LINES`` lines and
``DEFAULT_MAX_BYTES`` UTF-8 bytes. Head truncation (file reads: the model wants the start) keeps
whole lines only; tail truncation (command output: errors and results are at the end) keeps whole
lines too, except that when the very last line alone is over the byte limit it keeps the end of
that line. Lines are the pieces of ``text.split("\\n")``, so the byte count of a kept block is
the sum of its lines plus one byte per separating newline.
"""

from __future__ import annotations

from typing import Any, Literal

from aw_action.lazy_dataclass import dataclass

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


HEAD_TAIL_MAX_LINES = 256
HEAD_TAIL_MAX_BYTES = 10 * 1024
"""Command output limits, as Codex's model-format limits: 256 lines / 10 KiB in all, half of each
for the head; the tail gets what the head left. A model needs both ends of a command's output (the
command's own header and the first error near the top; the result and exit status at the bottom),
and a smaller cut keeps every later request smaller, since each one repeats the history."""


@dataclass(frozen=True)
class HeadTail:
    """The start and the end of a text, each made of whole lines unless marked partial.

    ``head_partial``: ``head`` is the start of line 1, which alone is over the head's byte share.
    ``tail_partial``: ``tail`` is the end of the last line, which alone is over what is left.
    """

    head: str
    tail: str
    truncated: bool
    total_lines: int
    total_bytes: int
    head_lines: int
    tail_lines: int
    head_partial: bool = False
    tail_partial: bool = False

    @property
    def omitted_lines(self) -> int:
        """Lines of which nothing is shown (a partly shown line counts as shown)."""
        shown = self.head_lines + self.tail_lines
        if self.head_partial and self.tail_partial and self.total_lines == 1:
            shown = 1  # the start and the end of one line
        return max(0, self.total_lines - shown)

    @property
    def omitted_bytes(self) -> int:
        """About how much is not shown (newlines at the cut are not counted exactly)."""
        return max(0, self.total_bytes - _utf8_len(self.head) - _utf8_len(self.tail))


def _utf8_prefix(text: str, max_bytes: int) -> str:
    """The longest prefix of ``text`` that is at most ``max_bytes`` UTF-8 bytes."""
    data = text.encode("utf-8", "surrogatepass")[:max_bytes]
    return data.decode("utf-8", "ignore")


def head_tail_of(
    head_text: str,
    tail_text: str,
    total_lines: int,
    total_bytes: int,
    *,
    max_lines: int = HEAD_TAIL_MAX_LINES,
    max_bytes: int = HEAD_TAIL_MAX_BYTES,
) -> HeadTail:
    """Cut from a text known only by its start (``head_text``: whole lines, at least
    ``max_bytes // 2`` bytes of them unless line 1 is longer) and its end (``tail_text``, at least
    ``max_bytes``), which must not meet: the caller has dropped the middle."""
    head = truncate_head(head_text, max_lines=max_lines // 2, max_bytes=max_bytes // 2)
    partial = head.first_line_exceeds_limit
    head_content = _utf8_prefix(head_text.split("\n", 1)[0], max_bytes // 2) if partial else head.content
    head_lines = 1 if partial else head.output_lines
    used = _utf8_len(head_content)
    tail = truncate_tail(tail_text, max_lines=max(1, max_lines - head_lines), max_bytes=max(1, max_bytes - used))
    return HeadTail(
        head_content, tail.content, True, total_lines, total_bytes, head_lines, tail.output_lines,
        head_partial=partial, tail_partial=tail.last_line_partial,
    )  # fmt: skip


def truncate_head_tail(
    text: str, *, max_lines: int = HEAD_TAIL_MAX_LINES, max_bytes: int = HEAD_TAIL_MAX_BYTES
) -> HeadTail:
    """Keep the first and the last lines of ``text`` within both limits, the middle cut out."""
    total_bytes = _utf8_len(text)
    lines = text.split("\n")
    if len(lines) <= max_lines and total_bytes <= max_bytes:
        return HeadTail(text, "", False, len(lines), total_bytes, len(lines), 0)
    head = truncate_head(text, max_lines=max_lines // 2, max_bytes=max_bytes // 2)
    if head.first_line_exceeds_limit:
        rest = "\n".join(lines[1:]) if len(lines) > 1 else lines[0]
        return head_tail_of(text, rest, len(lines), total_bytes, max_lines=max_lines, max_bytes=max_bytes)
    rest = "\n".join(lines[head.output_lines :])
    return head_tail_of(head.content, rest, len(lines), total_bytes, max_lines=max_lines, max_bytes=max_bytes)
