"""The run's mode: standalone, or gh-aw mode (inside a compiled gh-aw workflow's agent step).

gh-aw mode is ``GITHUB_AW=true``, which gh-aw exports to its engines (and the engine definition
``gh-aw/aw-harness.md`` sets); ``aw-harness gh-aw`` always runs in it. In gh-aw mode the limits
come from the ``GH_AW_*`` variables as well as config.json (the stricter wins), the records are
the ones gh-aw collects (``agent-session.jsonl``, no ``token-usage.jsonl`` or ``aw_session.jsonl``,
which AWF and gh-aw's conclusion job own) and ``GH_AW_PHASE`` labels the run. One predicate, so
every layer agrees on the mode.
"""

from __future__ import annotations

from collections.abc import Mapping

MODE_ENV = "GITHUB_AW"
PHASE_ENV = "GH_AW_PHASE"
MAX_PHASE_CHARS = 64


def gh_aw_mode(env: Mapping[str, str]) -> bool:
    return env.get(MODE_ENV, "").strip().lower() == "true"


def gh_aw_phase(env: Mapping[str, str]) -> str | None:
    """``GH_AW_PHASE`` (``agent``, ``detection``, ...) in gh-aw mode, else None."""
    if not gh_aw_mode(env):
        return None
    return env.get(PHASE_ENV, "").strip()[:MAX_PHASE_CHARS] or None
