"""Built-in extension 1: provider setup.

Registers the scripted provider (``faux``) always: it needs no credential and plays the script
named by ``harness.faux-script``, the ``AW_FAUX_SCRIPT`` variable, or the bundled demo.
"""

from __future__ import annotations

from pathlib import Path

from aw_action.ai.faux import FauxProvider, load_script
from aw_action.ai.types import Model
from aw_action.extensions.api import ExtensionAPI


def faux_script_path(api: ExtensionAPI) -> Path | None:
    configured = api.config.harness.faux_script or api.env.get("AW_FAUX_SCRIPT")
    if not configured:
        return None
    path = Path(configured)
    return path if path.is_absolute() else api.services.config_dir / path


def setup(api: ExtensionAPI) -> None:
    if api.config.engine.model.startswith(("faux/", "scripted", "faux")):
        api.register_provider("faux", FauxProvider(load_script(faux_script_path(api))))


CREDENTIAL_HINTS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "github": "GITHUB_TOKEN or COPILOT_GITHUB_TOKEN",
    "faux": "(none: use a faux/... model)",
}


def missing_credentials_message(model: Model, registered: list[str]) -> str:
    """The one-line error when no registered provider can serve ``model``."""
    looked_for = ", ".join(v for k, v in CREDENTIAL_HINTS.items() if k != "faux")
    need = CREDENTIAL_HINTS.get(model.provider, f"credentials for provider {model.provider!r}")
    have = ", ".join(p for p in registered if p != "faux") or "none"
    return f"no credentials for model {model.ref}: set {need} (looked for {looked_for}; providers registered: {have})"
