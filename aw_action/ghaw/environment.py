"""What the environment adds to a loaded config, applied once, in one place for every entry point.

``apply_environment`` runs right after config.json is loaded (``harness/invocation.Harness``,
which the CLI, the action and ``aw-harness gh-aw`` all use), before anything reads the config:

- every mode: a model without a provider gets the one ``GH_AW_LLM_PROVIDER`` names
  (``catalog.qualify_model``; ``github`` is the Copilot API);
- gh-aw mode (``run/mode.py``): each budget kind with a ``gh_aw_env`` (``run/budget_kinds.py``)
  is read by gh-aw's rules (``ghaw/limits.py``) and the stricter of it and config.json's value is
  written into the config, so the gates, steering, the deadline watchdog and the records all see
  one limit. Time is what is left of ``GH_AW_TIMEOUT_MINUTES`` counted from
  ``agent_cli_start_ms.txt``; a step whose time is already up, like a malformed value, is an
  ``InvocationError`` naming the variable (exit 2): a limit that cannot be read never becomes
  "no limit".

The caller's config is never changed; a changed copy is returned.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from aw_action.ai.catalog import provider_hint, qualify_model
from aw_action.exits import InvocationError
from aw_action.ghaw.limits import (
    GhAwEnvError,
    GhAwLimits,
    ai_credits,
    positive_int,
    positive_number,
    read_limits,
    read_start_ms,
    start_file_from,
    stricter,
)
from aw_action.run.budget_kinds import BUDGET_KINDS, BudgetKind
from aw_action.run.config import RunConfig
from aw_action.run.mode import gh_aw_mode


def gh_aw_limit(kind: BudgetKind, env: Mapping[str, str], now_ms: int) -> float | None:
    """The limit gh-aw sets for ``kind`` (its ``gh_aw_env``), by gh-aw's rules: a deadline is the
    time left from the start file; counted kinds take whole numbers; amounts take ``-1`` as
    "disabled". None when unset; ``GhAwEnvError`` when unusable."""
    name = kind.gh_aw_env
    if name is None:
        return None
    if kind.gate == "deadline":
        minutes = positive_number(env, name)
        if minutes is None:
            return None
        started = read_start_ms(start_file_from(env))
        remaining = GhAwLimits(timeout_minutes=minutes, started_at_ms=started).remaining_minutes(now_ms)
        if not remaining:
            raise GhAwEnvError(f"{name}: the agent step's time is already up (counted from agent_cli_start_ms.txt)")
        return remaining
    if kind.integer:
        return positive_int(env, name)
    return ai_credits(env, name)


def _tighten(config: RunConfig, kind: BudgetKind, limit: float) -> None:
    node: Any = config
    *parents, leaf = (part.replace("-", "_") for part in kind.config_path)
    for part in parents:
        node = getattr(node, part)
    value = stricter(getattr(node, leaf), limit)
    setattr(node, leaf, int(value) if kind.integer and value is not None else value)


def apply_environment(config: RunConfig, env: Mapping[str, str], now_ms: int | None = None) -> RunConfig:
    """``config`` with the environment's model provider and (gh-aw mode) ``GH_AW_*`` limits."""
    out = config.model_copy(deep=True)
    out.engine.model = qualify_model(config.engine.model, provider_hint(env))
    if not gh_aw_mode(env):
        return out
    now = int(time.time() * 1000) if now_ms is None else now_ms
    try:
        read_limits(env)  # every GH_AW_* limit is checked, the ones no budget kind uses too
        found = [(kind, gh_aw_limit(kind, env, now)) for kind in BUDGET_KINDS if kind.gh_aw_env]
    except GhAwEnvError as exc:
        raise InvocationError(str(exc)) from None
    for kind, limit in found:
        if limit is not None:
            _tighten(out, kind, limit)
    return out
