"""The event that triggered the workflow: its name (``GITHUB_EVENT_NAME``) and payload (the JSON
file at ``GITHUB_EVENT_PATH``). The trigger guard, the fork guard and the event context read it.

A missing or unreadable payload is an empty one (``{}``), never an error: the guards then refuse
what they cannot check (the trigger guard falls back to ``GITHUB_ACTOR``), and the event context
adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_EVENT_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class TriggerEvent:
    name: str = ""
    payload: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> TriggerEvent:
        name = env.get("GITHUB_EVENT_NAME") or ""
        path = env.get("GITHUB_EVENT_PATH")
        if not path:
            return cls(name)
        try:
            with Path(path).open("rb") as fh:
                data = json.loads(fh.read(MAX_EVENT_BYTES))
        except (OSError, ValueError, RecursionError):
            return cls(name)
        return cls(name, data if isinstance(data, dict) else {})
