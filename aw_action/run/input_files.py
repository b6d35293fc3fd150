"""Reading the files a run is given (config.json, prompt.txt, imports) without ever blocking,
running out of memory or raising anything but a one-line ``InvocationError``; a JSON file also
nested at most ``MAX_JSON_DEPTH`` deep and holding no ``NaN``/``Infinity`` (``read_json_file``;
``parse_json`` for JSON text read otherwise).

A path from a user or a config may be anything: empty, holding a NUL, a directory, a FIFO with no
writer (a plain ``open`` blocks forever, before the run's deadline exists), ``/dev/zero``
(endless), a socket, or a regular file far too large to be a prompt. So:

- the path must be non-empty and free of NUL characters;
- it is opened with ``O_NONBLOCK | O_NOCTTY`` and must be a regular file;
- at most ``MAX_INPUT_BYTES`` are read (one more tells the file is too large);
- the text must be UTF-8.

Every failure names the file and what is wrong with it: ``prompt file is a FIFO (named pipe),
not a regular file: /tmp/p``.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

from aw_action.environment.strict_json import parse_json
from aw_action.exits import InvocationError
from aw_action.run.yaml_hint import yaml_hint
from aw_action.tools.fs import kind_of

MAX_INPUT_BYTES = 10 * 1024 * 1024
"""The largest config, prompt or import file the harness reads (10 MiB)."""

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def checked_path(value: str | Path, what: str) -> Path:
    """``value`` as a path; ``InvocationError`` when it is empty or holds a NUL."""
    text = os.fspath(value)
    if not text or not str(text).strip():
        raise InvocationError(f"{what}: the path is empty")
    if "\x00" in str(text):
        raise InvocationError(f"{what}: the path holds a NUL character: {str(text)!r}")
    return Path(text)


class InputFileProblem(Exception):
    """Why a file cannot be used, in words that follow its name: ``not found``, ``is a FIFO
    (named pipe), not a regular file``, ``is larger than 10 MiB``, ..."""


def read_text_or_problem(path: Path, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``; ``InputFileProblem`` for anything else."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        raise InputFileProblem("not found") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise InputFileProblem("is a socket, not a regular file") from None
        raise InputFileProblem(f"unreadable ({exc.strerror or exc})") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputFileProblem(f"is {kind_of(mode)}, not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes and (chunk := os.read(fd, min(1 << 20, max_bytes + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputFileProblem(f"unreadable ({exc.strerror or exc})") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise InputFileProblem(f"is larger than {max_bytes / (1024 * 1024):g} MiB")
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileProblem(f"is not UTF-8 text (byte {exc.start})") from None


def read_input_text(path: Path, what: str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The text of ``path``, or ``InvocationError`` ``{what} {problem}: {path}``."""
    path = checked_path(path, what)
    try:
        return read_text_or_problem(path, max_bytes)
    except InputFileProblem as exc:
        raise InvocationError(f"{what} {exc}: {path}") from None


def read_json_file(path: Path, what: str) -> Any:
    """The parsed JSON of ``path`` (a regular file, at most 10 MiB, ``parse_json``'s rules);
    ``InvocationError`` naming the file."""
    text = read_input_text(path, what)
    try:
        return parse_json(text)
    except json.JSONDecodeError as exc:
        raise InvocationError(
            yaml_hint(text, path, what)
            or f"{what} is not valid JSON: {path}: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except ValueError as exc:
        raise InvocationError(f"{what} is not usable JSON: {path}: {exc}") from None
