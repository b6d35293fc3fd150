"""``missing_tool``: the agent reports a tool or capability it needed and did not have. Recorded
and shown (step summary, dry run, apply report); nothing is written to GitHub (``noted.py``)."""

from __future__ import annotations

from typing import ClassVar

from aw_action.safe_outputs.kinds import noted


class Kind(noted.NotedKind):
    name = "missing_tool"
    SPEC: ClassVar[noted.Fields] = {
        "tool": (128, "Name of the missing tool or capability"),
        "reason": (256, "Why it is needed, or what it kept you from doing"),
        "alternatives": (512, "Workarounds a person could use"),
    }
    REQUIRED: ClassVar[list[str]] = ["reason"]
    ACTION = (
        "Report a tool or capability you needed for the task and did not have, so the workflow's "
        "maintainers see it. Nothing is written to GitHub."
    )


KIND = Kind()
