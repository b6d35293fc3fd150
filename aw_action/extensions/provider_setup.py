"""Built-in extension 1: provider setup, a thin layer over ``ai/providers.build_providers``.

Registers every provider the ai layer builds for the run's model (one per catalog provider whose
credential the environment holds; the scripted one for a ``faux`` model), adds their real keys
to the redactor (and, as the providers meet them, the secrets a cloud's credentials file holds and
the tokens its client mints), and announces what AWF's ``/reflect`` reported (a line) and what went wrong with
it (warnings). What is built, from which variables and endpoints, and which failures end the
invocation is ``ai/providers.py``'s (docs/architecture.md, "What a change touches").

The scripted provider plays the script named by ``harness.faux-script`` (relative to config.json)
or the ``AW_FAUX_SCRIPT`` variable; without one, or with one that cannot be read, the invocation
fails (exit 2): playing something else would write files the user never asked for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aw_action.ai.faux import load_script
from aw_action.ai.providers import build_providers
from aw_action.environment.tuning import FAUX_SCRIPT
from aw_action.exits import InvocationError
from aw_action.extensions.api import ExtensionAPI


def faux_script(api: ExtensionAPI) -> list[dict[str, Any]]:
    """The scripted provider's script (see the module docstring)."""
    configured = api.config.harness.faux_script or FAUX_SCRIPT.text(api.env)
    source = "harness.faux-script" if api.config.harness.faux_script else FAUX_SCRIPT.name
    if not configured:
        raise InvocationError(
            f"model {api.model.ref} plays a script of answers, and none is set: set harness.faux-script "
            f"in config.json (a path relative to it) or {FAUX_SCRIPT.name} (examples/demo/config.json names one)"
        )
    path = Path(configured)
    path = path if path.is_absolute() else api.services.config_dir / path
    try:
        return load_script(path)
    except FileNotFoundError:
        raise InvocationError(f"{source}: {path}: not found") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InvocationError(f"{source}: {path}: not a faux script: {exc}") from None


def setup(api: ExtensionAPI) -> None:
    script = faux_script(api) if api.model.provider == "faux" else None
    redactor = api.services.redactor
    built = build_providers(
        api.model, api.env, scrub=redactor.text, faux_turns=script, reveal=redactor.add, runner=api.runner_facts
    )
    redactor.add(*built.secrets)
    api.services.awf_routes.update(built.awf_routes)
    for line in built.notes:
        api.services.jsonl.line(line)
    for warning in built.warnings:
        api.warn(warning)
    for name, provider in built.providers.items():
        api.register_provider(name, provider)
