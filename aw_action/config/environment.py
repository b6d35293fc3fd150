"""What the environment adds to a validated config (the middle layer of ``config/resolve.py``).

- every mode: a model without a provider gets the one ``GH_AW_LLM_PROVIDER`` names
  (``catalog.qualify_model``; ``github`` is the Copilot API);
- gh-aw mode (``run/mode.py``): every ``GH_AW_*`` limit is read and checked once
  (``gh_aw_limits.read_limits``, the ones no budget kind uses too), and each budget kind with a
  ``gh_aw_env`` gets the stricter of that limit and the config's value, so the gates, steering,
  the deadline watchdog and the records all see one limit. Time is what is left of
  ``GH_AW_TIMEOUT_MINUTES`` counted from ``agent_cli_start_ms.txt``; a step whose time is
  already up, like a malformed value, is an ``InvocationError`` naming the variable (exit 2): a
  limit that cannot be read never becomes "no limit";
- standalone: a budget kind with an ``env`` fallback the config leaves unset takes that
  variable's value (``GH_AW_MAX_AI_CREDITS``; a malformed value is an ``InvocationError``).

The caller's config is never changed; a changed copy is returned.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

from aw_action.ai.catalog import provider_hint, qualify_model
from aw_action.exits import InvocationError, Setting
from aw_action.run.budget_kinds import BUDGET_KINDS
from aw_action.run.config import RunConfig
from aw_action.run.mode import gh_aw_mode


def qualified_model(name: str, env: Mapping[str, str]) -> str:
    """``name`` with the provider gh-aw's ``GH_AW_LLM_PROVIDER`` names, when it names none
    (``ai/catalog.qualify_model``): the run's model, and any model a run switches to."""
    return qualify_model(name, provider_hint(env))


def apply_environment(config: RunConfig, env: Mapping[str, str], now_ms: int | None = None) -> RunConfig:
    """``config`` with the environment's model provider and limits (see the module docstring)."""
    out = config.model_copy(deep=True)
    out.engine.model = qualified_model(config.engine.model, env)
    if gh_aw_mode(env):
        _tighten_to_gh_aw(out, env, int(time.time() * 1000) if now_ms is None else now_ms)
    else:
        _standalone_fallbacks(out, env)
    return out


def _tighten_to_gh_aw(config: RunConfig, env: Mapping[str, str], now_ms: int) -> None:
    # when used, not at start (tests/cli/test_first_request_imports.py)
    from aw_action.config.gh_aw_limits import GhAwEnvError, read_limits, stricter

    try:
        limits = read_limits(env)
        found = [(kind, limits.limit(kind.gh_aw_env, now_ms)) for kind in BUDGET_KINDS if kind.gh_aw_env]
    except GhAwEnvError as exc:
        variable = str(exc).split(":", 1)[0]
        setting = Setting(variable, "variable") if variable.startswith("GH_AW_") else None
        raise InvocationError(str(exc), setting) from None
    for kind, limit in found:
        if limit is not None:
            kind.set_limit(config, stricter(kind.configured(config), limit))


def _standalone_fallbacks(config: RunConfig, env: Mapping[str, str]) -> None:
    for kind in BUDGET_KINDS:
        if kind.env and kind.configured(config) is None:
            kind.set_limit(config, env_limit(kind.env, env.get(kind.env), kind.integer))


def env_limit(name: str, raw: str | None, integer: bool = False) -> float | None:
    """A limit from an environment variable: blank is unset; anything but a positive finite
    number (a whole one for counted kinds) is an invocation error naming the variable."""
    if raw is None or not raw.strip():
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        raise InvocationError(
            f"{name}: expected a positive number, got {raw.strip()[:40]!r}", Setting(name, "variable")
        ) from None
    if not math.isfinite(value) or value <= 0 or (integer and not value.is_integer()):
        what = "a positive whole number" if integer else "a positive finite number"
        raise InvocationError(f"{name}: expected {what}, got {raw.strip()[:40]!r}", Setting(name, "variable"))
    return value
