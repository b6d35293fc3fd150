"""A strict YAML 1.2 reader for workflow files: plain data plus the line of every value.

It reads the parser's event stream (ruamel.yaml) and builds the data itself, so every rule is
enforced before any value exists: one document, no ``%YAML`` other than 1.2 and no ``%TAG``,
no tags (``!foo``, ``!!str``), no merge keys (``<<``), no duplicate or non-string keys, no
non-finite numbers, bounded nesting depth (counted after alias expansion: an alias nests its
anchor's whole depth where it stands), bounded anchors and aliases and a bounded number of
values after alias expansion (an alias bomb stops at the bound, it is never expanded).
Plain scalars resolve by the YAML 1.2 core schema (``yes``/``on`` stay strings).
"""

from __future__ import annotations

import math
import re
from dataclasses import field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    Event,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)

from aw_action.lazy_dataclass import dataclass

MAX_DEPTH = 32
MAX_ALIASES = 64
MAX_NODES = 20_000

Path = tuple[str | int, ...]

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_NON_FINITE = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")


class YamlRejected(ValueError):
    """A rule of this reader was broken; ``line`` (1-based) and ``path`` locate it."""

    def __init__(self, message: str, line: int | None, path: Path = ()) -> None:
        super().__init__(message)
        self.line = line
        self.path = path


@dataclass
class YamlDocument:
    """The data of the one document, and where each value started."""

    data: Any
    lines: dict[Path, int] = field(default_factory=dict)

    def line_of(self, path: Path) -> int | None:
        """The line of ``path``, or of its nearest ancestor that has one."""
        for cut in range(len(path), -1, -1):
            line = self.lines.get(tuple(path[:cut]))
            if line is not None:
                return line
        return None


def _resolve_plain(text: str, line: int, path: Path) -> Any:
    if _NULL.match(text):
        return None
    if text in _BOOL:
        return _BOOL[text]
    if _INT.match(text):
        return int(text)
    if _OCT.match(text):
        return int(text[2:], 8)
    if _HEX.match(text):
        return int(text[2:], 16)
    if _NON_FINITE.match(text):
        raise YamlRejected(f"non-finite number {text!r} is not allowed", line, path)
    if _FLOAT.match(text):
        value = float(text)
        if not math.isfinite(value):
            raise YamlRejected(f"number {text!r} is out of range", line, path)
        return value
    return text


@dataclass
class _Frame:
    value: dict[str, Any] | list[Any]
    path: Path
    anchor: str | None
    pending_key: str | None = None
    key_line: int = 0
    nodes: int = 1
    height: int = 1
    """Levels of nesting from this collection down (1 when it holds only scalars)."""


class _Builder:
    def __init__(self) -> None:
        self.doc = YamlDocument(data=None)
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        """Each anchor's value, its number of values and its height."""
        self.aliases = 0
        self.nodes = 0
        self.documents = 0
        self.done = False

    def _count(self, n: int, line: int) -> None:
        self.nodes += n
        if self.nodes > MAX_NODES:
            raise YamlRejected(f"more than {MAX_NODES} values (after alias expansion)", line, self._path())
        if self.stack:
            for frame in self.stack:
                frame.nodes += n

    def _path(self) -> Path:
        if not self.stack:
            return ()
        top = self.stack[-1]
        if isinstance(top.value, list):
            return (*top.path, len(top.value))
        return (*top.path, top.pending_key) if top.pending_key is not None else top.path

    def _place(self, value: Any, line: int, is_scalar: bool, style: str | None = None) -> None:
        """Put a finished value into its parent (or make it the document)."""
        if not self.stack:
            if self.done:
                raise YamlRejected("more than one document", line)
            self.doc.data, self.done = value, True
            self.doc.lines.setdefault((), line)
            return
        top = self.stack[-1]
        if isinstance(top.value, list):
            self.doc.lines[(*top.path, len(top.value))] = line
            top.value.append(value)
            return
        if top.pending_key is None:
            self._take_key(top, value, line, is_scalar, style)
            return
        top.value[top.pending_key] = value
        top.pending_key = None

    def _take_key(self, top: _Frame, key: Any, line: int, is_scalar: bool, style: str | None) -> None:
        assert isinstance(top.value, dict)
        if not is_scalar or not isinstance(key, str):
            raise YamlRejected(f"mapping keys must be strings, not {key!r}", line, top.path)
        if key == "<<" and style is None:
            raise YamlRejected("merge keys (<<) are not supported", line, top.path)
        if key in top.value:
            raise YamlRejected(f"duplicate key {key!r}", line, top.path)
        top.pending_key = key
        top.value[key] = None
        self.doc.lines[(*top.path, key)] = line

    def event(self, ev: Event) -> None:
        line = ev.start_mark.line + 1 if ev.start_mark is not None else 0
        if isinstance(ev, DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise YamlRejected("more than one document", line)
            if ev.version is not None and tuple(ev.version) != (1, 2):
                raise YamlRejected(f"%YAML {'.'.join(map(str, ev.version))}: only YAML 1.2 is accepted", line)
            if ev.tags:
                raise YamlRejected("%TAG directives are not allowed", line)
            return
        tag = getattr(ev, "tag", None)
        if tag is not None:
            raise YamlRejected(f"tags are not allowed ({tag})", line, self._path())
        if isinstance(ev, AliasEvent):
            self._alias(ev, line)
        elif isinstance(ev, ScalarEvent):
            self._scalar(ev, line)
        elif isinstance(ev, MappingStartEvent | SequenceStartEvent):
            self._open(ev, line)
        elif isinstance(ev, MappingEndEvent | SequenceEndEvent):
            frame = self.stack.pop()
            if frame.anchor is not None:
                self._anchor(frame.anchor, frame.value, frame.nodes, frame.height, line)
            self._grow(frame.height)
            self._place(frame.value, self.doc.lines.get(frame.path, line), False)

    def _grow(self, height: int) -> None:
        """A value ``height`` levels deep was placed into the collection being built."""
        if self.stack:
            top = self.stack[-1]
            top.height = max(top.height, height + 1)

    def _anchor(self, name: str, value: Any, nodes: int, height: int, line: int) -> None:
        if len(self.anchors) >= MAX_ALIASES and name not in self.anchors:
            raise YamlRejected(f"more than {MAX_ALIASES} anchors", line, self._path())
        self.anchors[name] = (value, nodes, height)

    def _alias(self, ev: AliasEvent, line: int) -> None:
        self.aliases += 1
        if self.aliases > MAX_ALIASES:
            raise YamlRejected(f"more than {MAX_ALIASES} aliases", line, self._path())
        if ev.anchor not in self.anchors:
            raise YamlRejected(f"alias *{ev.anchor} refers to no finished anchor", line, self._path())
        value, nodes, height = self.anchors[ev.anchor]
        if len(self.stack) + height > MAX_DEPTH:
            raise YamlRejected(
                f"nesting deeper than {MAX_DEPTH} levels (through alias *{ev.anchor})", line, self._path()
            )
        self._count(nodes, line)
        self._grow(height)
        self._place(value, line, not isinstance(value, dict | list))

    def _scalar(self, ev: ScalarEvent, line: int) -> None:
        self._count(1, line)
        plain = ev.style is None
        value = _resolve_plain(ev.value, line, self._path()) if plain else ev.value
        if ev.anchor is not None:
            self._anchor(ev.anchor, value, 1, 0, line)
        self._place(value, line, True, ev.style)

    def _open(self, ev: MappingStartEvent | SequenceStartEvent, line: int) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise YamlRejected(f"nesting deeper than {MAX_DEPTH} levels", line, self._path())
        self._count(1, line)
        path = self._path()
        if self.stack and isinstance(self.stack[-1].value, dict) and self.stack[-1].pending_key is None:
            raise YamlRejected("mapping keys must be strings, not a collection", line, path)
        self.doc.lines.setdefault(path, line)
        value: dict[str, Any] | list[Any] = {} if isinstance(ev, MappingStartEvent) else []
        self.stack.append(_Frame(value, path, ev.anchor))


def load_strict(text: str) -> YamlDocument:
    """Parse ``text`` under the rules above; ``YamlRejected`` carries the line and path."""
    builder = _Builder()
    try:
        for ev in YAML(typ="safe", pure=True).parse(text):
            builder.event(ev)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise YamlRejected(problem, mark.line + 1 if mark else None) from None
    except YAMLError as exc:
        raise YamlRejected(" ".join(str(exc).split()) or "invalid YAML", None) from None
    if not builder.done:
        raise YamlRejected("the file holds no YAML document", 1)
    return builder.doc
