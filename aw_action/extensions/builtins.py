"""The built-in extensions, in load order (spec §7.1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aw_action.extensions import cost_tracker, observability, provider_setup
from aw_action.extensions.api import ExtensionAPI

BUILTINS: list[tuple[str, Callable[[ExtensionAPI], Any]]] = [
    ("provider-setup", provider_setup.setup),
    ("cost-tracker", cost_tracker.setup),
    ("observability", observability.setup),
]
