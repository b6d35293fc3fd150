"""The one reader of the event file (``GITHUB_EVENT_PATH``): bounded, strict JSON.

A file over ``MAX_EVENT_BYTES`` is ``EventFileTooLarge``, an invocation error naming the file
(exit 2): GitHub's payloads are a few hundred KiB at most. A path that is blank or names no file
is an empty event (``{}``): the guards then refuse what they cannot check. A file that cannot be
read or is not JSON is ``EventFileUnreadable``; each reader decides whether that is an error
(the apply job) or an empty event (the guards, the comment target). JSON that is not an object
is an empty event.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from aw_action.environment.strict_json import parse_json
from aw_action.exits import InvocationError, Setting

MAX_EVENT_BYTES = 64 * 1024 * 1024
"""The most of an event file the harness reads; over it the file is refused."""


class EventFileTooLarge(InvocationError):
    """The event file is over ``MAX_EVENT_BYTES``."""


class EventFileUnreadable(ValueError):
    """The event file exists but cannot be read as a JSON document."""


def read_event_file(path: str | Path | None) -> dict[str, Any]:
    """The event payload at ``path`` (see the module docstring for what each failure is)."""
    if path is None or not str(path).strip():
        return {}
    file = Path(path)
    try:
        fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise EventFileUnreadable(f"{file}: cannot read the event: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # before fdopen: a directory fails it
            raise EventFileUnreadable(f"{file}: the event file is not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as stream:
            data = stream.read(MAX_EVENT_BYTES + 1)
    except OSError as exc:  # a read error on a file the kernel called regular (EIO)
        raise EventFileUnreadable(f"{file}: cannot read the event: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if len(data) > MAX_EVENT_BYTES:
        raise EventFileTooLarge(
            f"the event file {file} is over {MAX_EVENT_BYTES // (1024 * 1024)} MiB: refused",
            Setting(str(file), "file"),
        )
    try:
        value = parse_json(data, finite=True)
    except ValueError as exc:
        raise EventFileUnreadable(f"{file}: the event is not JSON: {exc}") from None
    return value if isinstance(value, dict) else {}
