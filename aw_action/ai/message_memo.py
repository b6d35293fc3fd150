"""Each history message's wire form, converted once: a request repeats the whole history, and
converting every message again on every request made a run's conversion work grow with the square
of its turns (bench/PROFILE.md).

``MessageMemo.convert`` returns the wire form of each message, converting only the messages the
previous call did not have; it keeps exactly the messages of the latest call (a replaced or
compacted history lets its old messages go). Messages are matched by identity: a persisted
message is never changed in place (repair, compaction and hooks replace it with a new object), so
the same object has the same wire form. What it returns is shared between requests: callers build
new containers around it and never change it in place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

M = TypeVar("M")
W = TypeVar("W")


class MessageMemo(Generic[M, W]):
    def __init__(self, convert_one: Callable[[M], W]) -> None:
        self._convert_one = convert_one
        self._kept: dict[int, tuple[M, W]] = {}

    def convert(self, messages: Iterable[M]) -> list[W]:
        """The wire form of each of ``messages``, in order."""
        previous, kept = self._kept, {}
        out = []
        for message in messages:
            entry = previous.get(id(message))
            if entry is None or entry[0] is not message:
                entry = (message, self._convert_one(message))
            kept[id(message)] = entry
            out.append(entry[1])
        self._kept = kept
        return out
