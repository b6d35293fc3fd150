"""The step log: one ordered stream carrying the run's lines and the action's workflow commands.

Why one stream: the runner reads stdout and stderr on separate pipes, so their relative order is
not guaranteed. A ``::group::`` only contains the lines it should, and a ``::stop-commands::``
guard only protects the lines it should, when both travel on the same stream as those lines.

The log reads as text from its first line to its last: the run's JSONL records (and the result
object) are folded away. With ``log-format: grouped`` (the default) a record outside a turn's
group opens a collapsed ``Records`` group, closed by the next line of text, group or annotation
(each turn's group holds its own records beside the readable lines); with ``log-format: file``
records go to ``events.jsonl`` in the output folder (opened when the first record arrives,
never through a link) and the log holds the text alone.

Contract:
- ``write()`` (the file protocol; JsonlSink and redirected ``print`` use it) takes *untrusted*
  text: each complete line is redacted, then written while command processing is stopped by a
  fresh random token, so nothing a model produced can act as a workflow command.
- ``mask``/``group``/``warning``/``error`` write *trusted* commands: processing is resumed just
  before them (and stopped again lazily, at the next untrusted line).
- Annotations respect GitHub's per-step cap: the last slot of each kind reports how many
  more were left out.
- ``finish()`` ends an open group, reports suppressed annotations and resumes command processing.
- Thread-safe: the cancel watchdog may write its last words while the main thread is stuck.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TextIO, TypeVar

from aw_action.github import commands
from aw_action.github.turns import TurnTracker, parse_record
from aw_action.run.redact import Redactor
from aw_action.sinks.line_stream import LineStream

F = TypeVar("F", bound=Callable[..., Any])
LogFormat = Literal["grouped", "file"]
RECORDS_GROUP = "Records (JSONL)"


def _locked(method: F) -> F:
    @functools.wraps(method)
    def wrapper(self: WorkflowLog, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def is_record(line: str, record: dict[str, Any] | None) -> bool:
    """A JSONL record, or the result object (``{"conclusion": ...}``) the action prints."""
    return record is not None or line.startswith('{"conclusion"')


class WorkflowLog(LineStream):
    def __init__(self, out: TextIO, redactor: Redactor | None = None) -> None:
        super().__init__(out)
        self.redactor = redactor or Redactor()
        self._token: str | None = None
        self._group_open = False
        self._records_group = False
        self._emitted: dict[str, int] = {}
        self._dropped: dict[str, int] = {}
        self.turns = TurnTracker(self)
        self.records_file: Path | None = None
        """``log-format: file``: where the records go instead of the log (``use_records_file``)."""
        self._records_fd: int | None = None

    def use_records_file(self, path: Path) -> None:
        """Send the records to ``path`` from now on (``log-format: file``)."""
        self.records_file = path

    # -- the file protocol (LineStream): each line written is untrusted text ---------------
    def _line(self, line: str) -> None:
        line = self.redactor.text(line.rstrip("\r"))
        record = parse_record(line)
        self.turns.before(line, record)
        if is_record(line, record):
            if not self._to_file(line):
                if not self._group_open:
                    self.group(RECORDS_GROUP)
                    self._records_group = True
                self._untrusted(line)
        else:
            if self._records_group:
                self.end_group()
            self._untrusted(line)
        self.turns.after(line, record)

    def _untrusted(self, line: str) -> None:
        if self._token is None:
            self._token = commands.stop_token()
            self._emit(commands.stop_commands(self._token))
        self._emit(line)

    def _to_file(self, line: str) -> bool:
        """Append a record to the records file; False (the log takes it) without one, or when it
        cannot be written."""
        if self.records_file is None:
            return False
        try:
            if self._records_fd is None:
                self.records_file.parent.mkdir(parents=True, exist_ok=True)
                flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
                self._records_fd = os.open(self.records_file, flags, 0o644)
            os.write(self._records_fd, (line + "\n").encode("utf-8"))
            return True
        except OSError as exc:
            failed, self.records_file = self.records_file, None
            self.warning(f"the records go to the log instead of {failed}: {exc}", title="aw-harness")
            return False

    # -- trusted commands --------------------------------------------------------------------
    @_locked
    def command(self, line: str) -> None:
        if self._token is not None:
            self._emit(commands.resume_commands(self._token))
            self._token = None
        self._emit(line)

    @_locked
    def mask(self, value: str) -> None:
        """Registers a secret with the runner's masker and with this log's redactor."""
        for line in commands.mask_commands(value):
            self.command(line)
        self.redactor.add(value)

    @_locked
    def group(self, title: str) -> None:
        self.end_group()
        self.command(commands.command("group", self.redactor.text(title)))
        self._group_open = True

    @_locked
    def end_group(self) -> None:
        if self._group_open:
            self.command(commands.command("endgroup"))
            self._group_open = False
            self._records_group = False

    @property
    def in_group(self) -> bool:
        return self._group_open

    @property
    def in_turn(self) -> bool:
        return self._group_open and not self._records_group

    def warning(self, message: str, title: str | None = None) -> None:
        self._annotate("warning", message, title)

    def error(self, message: str, title: str | None = None) -> None:
        self._annotate("error", message, title)

    def notice(self, message: str, title: str | None = None) -> None:
        self._annotate("notice", message, title)

    @_locked
    def _annotate(self, kind: str, message: str, title: str | None) -> None:
        count = self._emitted.get(kind, 0)
        if count >= commands.ANNOTATION_CAP - 1:
            self._dropped[kind] = self._dropped.get(kind, 0) + 1
            return
        self._emitted[kind] = count + 1
        if self._records_group:  # an annotation reads in the log where it happens, not folded away
            self.end_group()
        clean_title = self.redactor.text(title) if title else None
        self.command(commands.command(kind, self.redactor.text(message), title=clean_title))

    @_locked
    def finish(self) -> None:
        """End the log (idempotent); the underlying stream stays open for the caller."""
        if self._partial:
            self._line(self._partial)
            self._partial = ""
        self.end_group()
        for kind, dropped in sorted(self._dropped.items()):
            self.command(
                commands.command(kind, f"{dropped} more {kind}(s) not shown as annotations; see the step log.")
            )
            self._emitted[kind] = commands.ANNOTATION_CAP
        self._dropped.clear()
        if self._token is not None:
            self._emit(commands.resume_commands(self._token))
            self._token = None
        if self._records_fd is not None:
            os.close(self._records_fd)
            self._records_fd = None
        self.flush()

    def _emit(self, line: str) -> None:
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (OSError, ValueError):
            pass
