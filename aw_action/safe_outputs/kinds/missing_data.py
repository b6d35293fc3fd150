"""``missing_data``: the agent reports data or information it needed and could not get. Recorded
and shown (step summary, dry run, apply report); nothing is written to GitHub (``noted.py``)."""

from __future__ import annotations

from typing import ClassVar

from aw_action.safe_outputs.kinds import noted


class Kind(noted.NotedKind):
    name = "missing_data"
    SPEC: ClassVar[noted.Fields] = {
        "data_type": (128, "What data or information is missing"),
        "reason": (256, "Why the task needs it"),
        "context": (256, "Where it should come from"),
        "alternatives": (256, "Workarounds a person could use"),
    }
    ACTION = (
        "Report data or information you needed for the task and could not get, so the workflow's "
        "maintainers see it. Nothing is written to GitHub."
    )


KIND = Kind()
