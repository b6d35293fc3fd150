"""The event that triggered the workflow: its name (``GITHUB_EVENT_NAME``) and payload (the JSON
file at ``GITHUB_EVENT_PATH``). The trigger guard, the fork guard and the event context read it.

A missing or unreadable payload is an empty one (``{}``), never an error: the guards then refuse
what they cannot check (the trigger guard falls back to ``GITHUB_ACTOR``), and the event context
adds nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from aw_action.environment.event_file import EventFileUnreadable, read_event_file
from aw_action.environment.runner import RunnerFacts
from aw_action.lazy_dataclass import dataclass


@dataclass(frozen=True)
class TriggerEvent:
    name: str = ""
    payload: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_runner(cls, runner: RunnerFacts) -> TriggerEvent:
        """The event the runner names, its payload read from its event file (empty when unreadable)."""
        try:
            return cls(runner.event_name, read_event_file(runner.event_path))
        except EventFileUnreadable:
            return cls(runner.event_name)
