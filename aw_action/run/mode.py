"""The run's mode: standalone, or gh-aw mode (inside a compiled gh-aw workflow's agent step).

gh-aw mode is ``GITHUB_AW=true``, which gh-aw exports to its engines (and the engine definition
``gh-aw/aw-harness.md`` sets); ``aw-harness gh-aw`` always runs in it. In gh-aw mode the limits
come from the ``GH_AW_*`` variables as well as config.json (the stricter wins), the record files
are the ones gh-aw collects (each writer says in which modes it writes: ``sinks/record_files.py``)
and ``GH_AW_PHASE`` labels the run. One predicate, so every layer agrees on the mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from aw_action.environment.runner import MODE_VAR

MODE_ENV = MODE_VAR
PHASE_ENV = "GH_AW_PHASE"
MAX_PHASE_CHARS = 64

RunMode = Literal["standalone", "gh-aw"]


def gh_aw_mode(env: Mapping[str, str]) -> bool:
    return env.get(MODE_ENV, "").strip().lower() == "true"


def run_mode(env: Mapping[str, str]) -> RunMode:
    return "gh-aw" if gh_aw_mode(env) else "standalone"


def gh_aw_phase(env: Mapping[str, str]) -> str | None:
    """``GH_AW_PHASE`` (``agent``, ``detection``, ...) in gh-aw mode, else None."""
    if not gh_aw_mode(env):
        return None
    return env.get(PHASE_ENV, "").strip()[:MAX_PHASE_CHARS] or None
