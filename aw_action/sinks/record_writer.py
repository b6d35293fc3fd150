"""The interface every record file's writer follows (the writers: ``record_files.py``; every
record file's row: ``run/record_table.py``).

A record writer turns the run's facts (``RunState``) and events into one file in the output dir.
Observability (``extensions/observability.py``) makes one of each writer the table lists for the
run's mode, and calls it:

- ``start`` at ``session_start``;
- ``on_event`` for every agent event, ``on_request`` for every model request the ledger booked
  (with its HTTP status), ``on_warning`` for a sink's failure the run should record;
- ``finish`` at ``session_shutdown``: the closing records, then the file is closed.

A writer handles only what it needs (the defaults do nothing) and may raise from any method:
observability switches a writer that raised off, with a warning and a degraded notice (its
``subsystem``), and nothing reaches the run. A ``closed`` writer gets nothing more. Every file is
opened through the run's record ledger (``WriterContext.records``: the held output dir, never a
path re-resolved), so what a writer reports writing is what the run's seal checks.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from aw_action.agent.events import AgentEvent
from aw_action.ai.types import Model
from aw_action.environment.runner import RunnerFacts
from aw_action.lazy_dataclass import dataclass
from aw_action.run.config import RunConfig
from aw_action.run.ledger import RequestRecord
from aw_action.run.mode import RunMode
from aw_action.run.record_table import RecordFile
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.security.records.record_guard import RecordWrites
from aw_action.sinks.files import JsonlFile

if TYPE_CHECKING:
    from aw_action.run.result import RunResult


@dataclass(frozen=True)
class WriterContext:
    """What every writer is made with."""

    output_dir: Path
    redactor: Redactor
    state: RunState
    records: RecordWrites | None = None


@dataclass(frozen=True)
class SessionInfo:
    """The session as it starts."""

    session_id: str
    workspace: str
    configured_model: str
    """``engine.model`` as config.json names it (the state's ``model`` is the resolved one)."""
    env: Mapping[str, str]
    config: RunConfig
    """The run's config as resolved (``config/resolve.py``)."""
    model: Model
    """The run's model as the catalog resolved it."""
    config_dir: Path
    """Where relative paths of the config resolve from."""
    tmpdir: str | None = None
    """The tools' private ``TMPDIR`` (``harness/sandbox_setup.py``), when they have one."""
    runner_facts: RunnerFacts = field(default_factory=RunnerFacts)
    """The runner's facts (``environment/runner.py``), as the entry point read them (read from
    ``env`` when not given)."""

    def __post_init__(self) -> None:
        if self.runner_facts == RunnerFacts():
            object.__setattr__(self, "runner_facts", RunnerFacts.read(self.env))


@dataclass(frozen=True)
class BookedRequest:
    """A model request as the cost tracker booked it, with the HTTP status of its last answer."""

    record: RequestRecord
    http_status: int | None
    api: str


class RecordWriter(ABC):
    """One record file: its ``row`` of ``run/record_table.py``, whose ``file_name`` in the output
    dir it writes, in the ``modes`` the row names."""

    row: ClassVar[RecordFile]
    subsystem: ClassVar[str]
    """The name a failure is reported under (a degraded notice, the summary)."""
    file_name: ClassVar[str]
    """``row.name``, set for each writer from its row."""
    modes: ClassVar[frozenset[RunMode]]
    """``row.modes``, set for each writer from its row."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "row" in cls.__dict__:
            cls.file_name = cls.row.name
            cls.modes = cls.row.modes

    def __init__(self, ctx: WriterContext) -> None:
        self.ctx = ctx
        self.state = ctx.state

    @property
    def path(self) -> Path:
        return self.ctx.output_dir / self.file_name

    @property
    @abstractmethod
    def closed(self) -> bool: ...

    def start(self, session: SessionInfo) -> None:
        return None

    def on_event(self, event: AgentEvent) -> None:
        return None

    def on_request(self, request: BookedRequest) -> None:
        return None

    def on_warning(self, message: str) -> None:
        return None

    @abstractmethod
    def finish(self, result: RunResult) -> None:
        """The closing records, then close the file."""


class JsonlRecordWriter(RecordWriter):
    """A record writer whose file is JSONL: ``file`` (``sinks/files.JsonlFile``, opened through the
    run's ledger), made when the writer is. ``JsonlFile.write`` is the one place a record line is
    redacted and written; ``finish`` closes the file (a writer with closing records writes them,
    then calls it). The file is created by its first line (``file.ensure()`` makes it without one).
    """

    file: JsonlFile

    def __init__(self, ctx: WriterContext) -> None:
        super().__init__(ctx)
        self.file = self.open_file()

    def open_file(self) -> JsonlFile:
        """The file this writer appends to (a writer with a checked format returns its own)."""
        return JsonlFile(self.path, self.ctx.redactor, self.ctx.records)

    @property
    def closed(self) -> bool:
        return self.file.closed

    def finish(self, result: RunResult) -> None:
        self.file.close()
