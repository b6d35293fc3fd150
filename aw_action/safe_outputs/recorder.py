"""Turn one safe-output request into one record: the path both the agent's tools and the bash
CLI take, so both validate alike and share one count per kind.

Under the records lock: count what the file already holds of the kind, refuse past ``max``
(the agent reads why), let the kind capture what the record needs besides the arguments
(``capture``: a pull request's patch), append the line. A refused request leaves no record and
no file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from aw_action.environment.runner import RunnerFacts
from aw_action.lazy_dataclass import dataclass
from aw_action.safe_outputs.config import SafeOutputsConfig
from aw_action.safe_outputs.kinds import NOTHING_TO_DO
from aw_action.safe_outputs.kinds.base import GitUser, Recording, RequestError
from aw_action.safe_outputs.records import RecordLog
from aw_action.safe_outputs.validate import kind_config, validate_request
from aw_action.security.records.record_guard import RecordWrites

APPLIED_LATER = "Recorded, not applied yet: a later job with write access applies it after this run."


def _scrubbed(value: Any, scrub: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_scrubbed(v, scrub) for v in value]
    return value


@dataclass
class Recorder:
    config: SafeOutputsConfig
    output_dir: Path
    workspace: Path
    env: Mapping[str, str]
    scrub: Callable[[str], str] | None = None
    """The run's redactor: a secret the agent pastes into a body never reaches a record."""
    records: RecordWrites | None = None
    """The run's ledger (in the harness): the records file is reached through its held dir."""
    runner: RunnerFacts | None = None
    """The runner's facts as the entry point read them (read from ``env`` when not given)."""

    def __post_init__(self) -> None:
        if self.runner is None:
            self.runner = RunnerFacts.read(self.env)

    @property
    def log(self) -> RecordLog:
        return RecordLog(self.output_dir, self.records)

    def record(self, record_type: str, args: Mapping[str, Any], git_user: GitUser | None = None) -> dict[str, Any]:
        """Append the record; returns what the agent reads. ``RequestError`` when refused.
        ``git_user``: who runs git for what the kind captures (a pull request's patch)."""
        record = validate_request(record_type, args, self.config)
        if self.scrub is not None:
            record = {k: _scrubbed(v, self.scrub) for k, v in record.items()}
        kind, cfg = kind_config(record_type, self.config)
        limit = cfg.max
        log = self.log
        with log.locked():
            used = log.count(record_type)
            if used >= limit:
                raise RequestError(
                    f"limit reached: {used} of {limit} {record_type} already recorded this run "
                    f"(safe-outputs.{kind.key}.max); nothing was recorded. Put what matters most "
                    f"into the ones already recorded, or call {NOTHING_TO_DO}."
                )
            assert self.runner is not None  # __post_init__
            recording = Recording(
                self.config, self.output_dir, self.workspace, self.env, git_user or GitUser(), self.records, self.runner
            )
            extra = kind.capture(record, cfg, recording)
            log.append(record)
        return {
            "result": "success",
            "type": record_type,
            "used": used + 1,
            "max": limit,
            **extra,
            "note": APPLIED_LATER,
        }
