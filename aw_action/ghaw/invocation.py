"""gh-aw's agent step, turned into the harness's inputs: where its config comes from and its prompt.

A behavior-defined engine is run as ``<command-name> <args...> "$(cat /tmp/gh-aw/aw-prompts/
prompt.txt)"`` with ``GH_AW_PROMPT`` naming the same file (gh-aw ``pkg/workflow/
behavior_defined_engine.go``). There is no config.json: the compiler already put the imports
into the prompt. So:

- the prompt is the file ``GH_AW_PROMPT`` names (no argv size limit, no shell quoting in the
  way); the prompt argument is the fallback when that variable is unset;
- the model is ``--model``, else ``AW_HARNESS_MODEL`` (the definition's ``model-env-var``), else
  the optional config file's ``engine.model``;
- an optional config file (``--config`` or ``AW_HARNESS_CONFIG``) supplies harness settings.

The config is resolved like every entry point's (``config/resolve.py``), which also applies
what the environment adds (the provider ``GH_AW_LLM_PROVIDER`` names, the ``GH_AW_*`` limits, the
stricter winning).

Every problem raises ``InvocationError`` (exit 2) with one line naming the variable or file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from aw_action.config import ConfigSources, Override
from aw_action.config.resolve import MODEL_PATH
from aw_action.environment.tuning import HARNESS_CONFIG, HARNESS_MODEL
from aw_action.exits import InvocationError

MODEL_ENV = HARNESS_MODEL.name
CONFIG_ENV = HARNESS_CONFIG.name
PROMPT_ENV = "GH_AW_PROMPT"
NO_MODEL = f"no model: set engine.model in the workflow (the engine passes it as {MODEL_ENV}) or --model"


def choose_prompt(env: Mapping[str, str], argv_prompt: str | None) -> tuple[Path | None, str | None]:
    """``(file, None)`` from ``GH_AW_PROMPT``, else ``(None, text)`` from the argument."""
    named = env.get(PROMPT_ENV, "").strip()
    if named:
        return Path(named), None
    if argv_prompt and argv_prompt.strip():
        return None, argv_prompt
    raise InvocationError(f"no prompt: {PROMPT_ENV} is not set and no prompt argument was given")


def model_override(env: Mapping[str, str], flag: str | None) -> Override | None:
    """``--model``, else ``AW_HARNESS_MODEL``, over the config file's ``engine.model``."""
    for value, source in ((flag, "--model"), (env.get(MODEL_ENV), MODEL_ENV)):
        if value and value.strip():
            return Override(MODEL_PATH, value.strip(), source)
    return None


def config_sources(
    env: Mapping[str, str], config_path: Path, *, file: bool, model_flag: str | None = None
) -> ConfigSources:
    """The step's settings: the config file (``file``) or none, under the model override."""
    override = model_override(env, model_flag)
    overrides = (override,) if override is not None else ()
    return ConfigSources(config_path, file=file, overrides=overrides, missing_model=NO_MODEL)
