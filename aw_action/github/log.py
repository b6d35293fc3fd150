"""The step log: one ordered stream carrying the run's lines and the action's workflow commands.

Why one stream: the runner reads stdout and stderr on separate pipes, so their relative order is
not guaranteed. A ``::group::`` only contains the lines it should, and a ``::stop-commands::``
guard only protects the lines it should, when both travel on the same stream as those lines.

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
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

from aw_action.github import commands
from aw_action.github.turns import TurnTracker, parse_record
from aw_action.run.redact import Redactor
from aw_action.sinks.line_stream import LineStream

F = TypeVar("F", bound=Callable[..., Any])


def _locked(method: F) -> F:
    @functools.wraps(method)
    def wrapper(self: WorkflowLog, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


class WorkflowLog(LineStream):
    def __init__(self, out: TextIO, redactor: Redactor | None = None) -> None:
        super().__init__(out)
        self.redactor = redactor or Redactor()
        self._token: str | None = None
        self._group_open = False
        self._emitted: dict[str, int] = {}
        self._dropped: dict[str, int] = {}
        self.turns = TurnTracker(self)

    # -- the file protocol (LineStream): each line written is untrusted text ---------------
    def _line(self, line: str) -> None:
        line = self.redactor.text(line.rstrip("\r"))
        record = parse_record(line)
        self.turns.before(line, record)
        if self._token is None:
            self._token = commands.stop_token()
            self._emit(commands.stop_commands(self._token))
        self._emit(line)
        self.turns.after(line, record)

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

    @property
    def in_group(self) -> bool:
        return self._group_open

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
        self.flush()

    def _emit(self, line: str) -> None:
        try:
            self._out.write(line + "\n")
            self._out.flush()
        except (OSError, ValueError):
            pass
