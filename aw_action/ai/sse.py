"""Server-sent events read off a raw response body, once, into ``(event name, data)`` pairs.

The SDKs stay the transport (auth, base URL, status errors); a streamed reply's body is read here
instead of through the SDK's decoder and its typed event objects, which cost about half of the
harness's own work per turn (bench/PROFILE.md). What each event means is the wire's business
(``Wire.decode``: pings, in-stream errors, the end marker); this module only frames the body as
the SSE specification does (https://html.spec.whatwg.org/multipage/server-sent-events.html):

- lines end in LF, CRLF or a lone CR; a line starting with ``:`` is a comment; ``event:`` names the
  event, ``data:`` lines are joined with LF; other fields (``id``, ``retry``, unknown) are ignored;
- a blank line ends an event; an event with neither a name nor data is not dispatched; a body that
  ends inside an event does not dispatch it (the specification's rule, and the SDKs' decoders'),
  and the wire judges whether the reply was complete: a cut stream is never taken as done;
- bounded: a line longer than ``MAX_LINE_BYTES`` or an event's data longer than
  ``MAX_EVENT_BYTES`` ends the attempt with a ``fatal`` ``ProviderError`` (a server that sends
  an endless line cannot make the harness buffer it all), naming the limit.

The data stays bytes (``json.loads`` reads UTF-8 bytes directly); the name is decoded (ASCII in
practice; invalid UTF-8 is replaced, and an unknown name is the wire's to ignore).
"""

from __future__ import annotations

import enum
import json
from collections.abc import AsyncIterator
from typing import Any, Literal, NamedTuple

from aw_action.ai.errors import Classified, ProviderError, stream_error

MAX_LINE_BYTES = 64 * 1024 * 1024
"""Longest line accepted (the Responses API repeats a whole reply in its terminal event)."""
MAX_EVENT_BYTES = 64 * 1024 * 1024
"""Most data one event may carry, its lines joined."""


class ServerEvent(NamedTuple):
    """One dispatched event: its ``event:`` name (None when it had none) and its data."""

    name: str | None
    data: bytes


class _End(enum.Enum):
    END = "end"


END = _End.END
"""``Wire.decode``'s answer to the API's end-of-body marker (Chat Completions' ``data: [DONE]``)."""
Decoded = dict[str, Any] | None | Literal[_End.END]
"""What ``Wire.decode`` makes of one event: the event object, nothing to apply, or the end."""


def json_object(data: bytes) -> dict[str, Any] | None:
    """An event's data as the JSON object it must be; ``None`` for no data. Data that is not a
    JSON object ends the attempt (``fatal``, as the SDKs' own parsing failure did)."""
    if not data:
        return None
    try:
        value = json.loads(data)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ProviderError(Classified("fatal", f"the stream sent an event that is not JSON: {exc}")) from exc
    if not isinstance(value, dict):
        raise ProviderError(Classified("fatal", "the stream sent an event that is not a JSON object"))
    return value


def error_event(data: bytes) -> ProviderError:
    """An error event's ``ProviderError`` (``errors.stream_error`` of its JSON, else its text)."""
    try:
        body: object = json.loads(data) if data else None
    except (ValueError, RecursionError):
        body = None
    return ProviderError(stream_error(body, data.decode("utf-8", "replace")[:2000]))


def _too_big(what: str, limit: int) -> ProviderError:
    return ProviderError(Classified("fatal", f"the stream sent {what} longer than {limit} bytes"))


class _Framer:
    """The SSE state between chunks: the unfinished line and the event being built."""

    __slots__ = ("_buf", "_cr", "_data", "_name", "_size", "max_event", "max_line")

    def __init__(self, max_line: int, max_event: int) -> None:
        self.max_line = max_line
        self.max_event = max_event
        self._buf = bytearray()
        self._cr = False
        """The last chunk ended in CR: a LF opening the next one belongs to it."""
        self._name: str | None = None
        self._data: list[bytes] = []
        self._size = 0

    def feed(self, chunk: bytes) -> list[ServerEvent]:
        if self._cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._cr = False
        if b"\r" in chunk:
            self._cr = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        buf = self._buf
        start = len(buf)
        buf += chunk
        out: list[ServerEvent] = []
        end = buf.find(b"\n", start)
        if end < 0:
            if len(buf) > self.max_line:
                raise _too_big("a line", self.max_line)
            return out
        begin = 0
        while end >= 0:
            if end - begin > self.max_line:
                raise _too_big("a line", self.max_line)
            self._line(bytes(buf[begin:end]), out)
            begin = end + 1
            end = buf.find(b"\n", begin)
        del buf[:begin]
        if len(buf) > self.max_line:
            raise _too_big("a line", self.max_line)
        return out

    def close(self) -> None:
        """The body ended: an event not ended by a blank line is not dispatched (the
        specification's rule, and the SDKs' decoders'), nor is a last line without its end."""
        self._buf.clear()
        self._name, self._data, self._size = None, [], 0

    def _line(self, line: bytes, out: list[ServerEvent]) -> None:
        if not line:
            if self._name is not None or self._data:
                out.append(ServerEvent(self._name, b"\n".join(self._data)))
            self._name, self._data, self._size = None, [], 0
            return
        if line[0] == 0x3A:  # ":" a comment (a keep-alive)
            return
        field, colon, value = line.partition(b":")
        if colon and value[:1] == b" ":
            value = value[1:]
        if field == b"data":
            self._size += len(value) + 1
            if self._size > self.max_event:
                raise _too_big("an event", self.max_event)
            self._data.append(value)
        elif field == b"event":
            self._name = value.decode("utf-8", "replace") or None


async def read_events(
    chunks: AsyncIterator[bytes], *, max_line: int | None = None, max_event: int | None = None
) -> AsyncIterator[ServerEvent]:
    """The events of a body read as ``chunks`` (any split), in order, as each completes; the
    limits default to ``MAX_LINE_BYTES`` and ``MAX_EVENT_BYTES``."""
    framer = _Framer(max_line or MAX_LINE_BYTES, max_event or MAX_EVENT_BYTES)
    async for chunk in chunks:
        for event in framer.feed(chunk):
            yield event
    framer.close()
