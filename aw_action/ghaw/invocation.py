"""gh-aw's agent step, turned into the harness's inputs: a config.json object and a prompt.

A behavior-defined engine is run as ``<command-name> <args...> "$(cat /tmp/gh-aw/aw-prompts/
prompt.txt)"`` with ``GH_AW_PROMPT`` naming the same file (gh-aw ``pkg/workflow/
behavior_defined_engine.go``). There is no config.json: the compiler already put the imports
into the prompt. So:

- the prompt is the file ``GH_AW_PROMPT`` names (no argv size limit, no shell quoting in the
  way); the prompt argument is the fallback when that variable is unset;
- the model is ``--model``, else ``AW_HARNESS_MODEL`` (the definition's ``model-env-var``), else
  the optional config file's ``engine.model``;
- an optional config file (``--config`` or ``AW_HARNESS_CONFIG``) supplies harness settings.

What the environment adds to the config (the provider ``GH_AW_LLM_PROVIDER`` names, the
``GH_AW_*`` limits, the stricter winning) is applied when the harness loads it, as for every entry
point (``ghaw/environment.py``).

Every problem raises ``InvocationError`` (exit 2) with one line naming the variable or file.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aw_action.exits import InvocationError

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
    return name.strip()


def build(
    env: Mapping[str, str],
    *,
    argv_prompt: str | None = None,
    model_flag: str | None = None,
    config_data: Mapping[str, Any] | None = None,
) -> Invocation:
    config: dict[str, Any] = copy.deepcopy(dict(config_data or {}))
    engine = config.get("engine")
    config["engine"] = {**(engine if isinstance(engine, dict) else {}), "model": choose_model(env, model_flag, config)}
    prompt_file, prompt_text = choose_prompt(env, argv_prompt)
    return Invocation(config, prompt_file, prompt_text)
