"""What a provider's client needs besides its credential, read from the environment as the catalog
says (``providers.<name>.settings``: a cloud's region and project, Azure's API version), and the
check that its endpoint is named where it has no default (``base_url_fix``).

A value missing for the run's own provider is an ``InvocationError`` (exit 2) that names the
variable and its fix in the user's terms; for any other provider the caller skips it instead.
"""

from __future__ import annotations

from collections.abc import Mapping

from aw_action.ai.catalog import ProviderSpec
from aw_action.exits import InvocationError


class MissingSettingError(InvocationError):
    """A provider setting (or its endpoint) that is not set; the message says how to set it."""


def provider_settings(spec: ProviderSpec, env: Mapping[str, str]) -> dict[str, str]:
    """``spec``'s settings by name: the first variable set, else the default; ``MissingSettingError``
    for one that has neither."""
    found: dict[str, str] = {}
    for setting in spec.settings:
        value = next((env[name].strip() for name in setting.env if env.get(name, "").strip()), setting.default)
        if value:
            found[setting.name] = value
        else:
            names = " or ".join(setting.env)
            raise MissingSettingError(f"{spec.name}/…: {names} is not set: {setting.fix or f'set {names}'}")
    return found


def require_endpoint(spec: ProviderSpec, url: str | None) -> None:
    """``MissingSettingError`` when ``spec`` has no endpoint but the one the environment names."""
    if spec.base_url_fix and not url:
        raise MissingSettingError(f"{spec.name}/…: {spec.base_url_env} is not set: {spec.base_url_fix}")
