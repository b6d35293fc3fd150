"""gh-aw's agent step, turned into the harness's inputs: a config.json object and a prompt.

A behavior-defined engine is run as ``<command-name> <args...> "$(cat /tmp/gh-aw/aw-prompts/
prompt.txt)"`` with ``GH_AW_PROMPT`` naming the same file (gh-aw ``pkg/workflow/
behavior_defined_engine.go``). There is no config.json: the compiler already put the imports
into the prompt. So:

- the prompt is the file ``GH_AW_PROMPT`` names (no argv size limit, no shell quoting in the
  way); the prompt argument is the fallback when that variable is unset;
- the model is ``--model``, else ``AW_HARNESS_MODEL`` (the definition's ``model-env-var``), else
  the optional config file's ``engine.model``; a name without a provider gets the one
  ``GH_AW_LLM_PROVIDER`` names (``github`` is the Copilot API);
- an optional config file (``--config`` or ``AW_HARNESS_CONFIG``) supplies harness settings;
- limits: the config's ``timeout-minutes`` and the time left of ``GH_AW_TIMEOUT_MINUTES``
  (counted from ``agent_cli_start_ms.txt``), and ``GH_AW_MAX_TURNS``: the stricter wins.
  ``GH_AW_MAX_AI_CREDITS`` is not copied: AWF's proxy enforces it (its 403 is the ``budget``
  error kind) and the cost tracker reads the variable itself when the config sets no credit budget.

Every problem raises ``InvocationError`` (exit 2) with one line naming the variable or file.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aw_action.ai.catalog import provider_hint, qualify_model
from aw_action.exits import InvocationError
from aw_action.ghaw.limits import GhAwLimits, stricter

MODEL_ENV = "AW_HARNESS_MODEL"
CONFIG_ENV = "AW_HARNESS_CONFIG"
PROMPT_ENV = "GH_AW_PROMPT"


@dataclass(frozen=True)
class Invocation:
    config: dict[str, Any]
    """A config.json object (kebab-case keys), ready for ``RunConfig.model_validate``."""
    prompt_file: Path | None
    prompt_text: str | None
    """Set when the prompt came from the argument (``GH_AW_PROMPT`` unset)."""


def choose_prompt(env: Mapping[str, str], argv_prompt: str | None) -> tuple[Path | None, str | None]:
    named = env.get(PROMPT_ENV, "").strip()
    if named:
        return Path(named), None
    if argv_prompt and argv_prompt.strip():
        return None, argv_prompt
    raise InvocationError(f"no prompt: {PROMPT_ENV} is not set and no prompt argument was given")


def choose_model(env: Mapping[str, str], flag: str | None, config: Mapping[str, Any]) -> str:
    engine = config.get("engine")
    configured = engine.get("model") if isinstance(engine, Mapping) else None
    name = (flag or "").strip() or env.get(MODEL_ENV, "").strip() or (configured or "")
    if not isinstance(name, str) or not name.strip():
        raise InvocationError(
            f"no model: set engine.model in the workflow (the engine passes it as {MODEL_ENV}) or --model"
        )
    return qualify_model(name, provider_hint(env))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _tighten(section: dict[str, Any], name: str, limit: float | None) -> None:
    """Set ``section[name]`` (kebab or snake spelling, as written) to the stricter of it and
    ``limit``; a value that is not a number is left for ``RunConfig`` to name."""
    if limit is None:
        return
    key = name.replace("-", "_") if name.replace("-", "_") in section else name
    current = section.get(key)
    if current is None or _is_number(current):
        section[key] = stricter(current, limit)


def build(
    env: Mapping[str, str],
    limits: GhAwLimits,
    now_ms: int,
    *,
    argv_prompt: str | None = None,
    model_flag: str | None = None,
    config_data: Mapping[str, Any] | None = None,
) -> Invocation:
    config: dict[str, Any] = copy.deepcopy(dict(config_data or {}))
    engine = config.get("engine")
    config["engine"] = {**(engine if isinstance(engine, dict) else {}), "model": choose_model(env, model_flag, config)}
    remaining = limits.remaining_minutes(now_ms)
    if remaining is not None and remaining <= 0:
        raise InvocationError(
            "GH_AW_TIMEOUT_MINUTES: the agent step's time is already up (counted from agent_cli_start_ms.txt)"
        )
    _tighten(config, "timeout-minutes", remaining)
    if limits.max_turns is not None:
        harness = config.setdefault("harness", {})
        budget = harness.setdefault("budget", {}) if isinstance(harness, dict) else None
        if isinstance(budget, dict):
            _tighten(budget, "max-turns", limits.max_turns)
    prompt_file, prompt_text = choose_prompt(env, argv_prompt)
    return Invocation(config, prompt_file, prompt_text)
