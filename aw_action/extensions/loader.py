"""Loading extensions: the five built-ins first, then the user's ``harness.extensions``.

A user reference is ``./file.py`` or ``../file.py`` (relative to the workspace), an importable
module name, or the name of an entry point in group ``aw_harness.extensions``. Each must define a
top-level ``setup(api)``. A failing user extension is skipped with a warning (or, with
``harness.extensions-required``, fails the invocation); a failing built-in always fails it.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from aw_action.errors import BuiltinExtensionError, InvocationError
from aw_action.extensions.api import ExtensionAPI, HostServices

Setup = Callable[[ExtensionAPI], Any]
ENTRY_POINT_GROUP = "aw_harness.extensions"


@dataclass(frozen=True)
class ExtensionSpec:
    name: str
    setup: Setup
    builtin: bool


def builtin_specs() -> list[ExtensionSpec]:
    """The built-ins in spec order: provider setup, cost tracker, steering, repair, observability."""
    from aw_action.extensions import builtins

    return [ExtensionSpec(name, setup, True) for name, setup in builtins.BUILTINS]


def _load_module(ref: str, workspace: Path) -> ModuleType:
    if ref.startswith(("./", "../")) or ref.endswith(".py"):
        path = (workspace / ref).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"no such file: {path}")
        spec = importlib.util.spec_from_file_location(f"aw_user_ext_{abs(hash(str(path)))}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == ref:
            loaded = ep.load()
            if isinstance(loaded, ModuleType):
                return loaded
            module = ModuleType(ref)
            module.setup = loaded  # type: ignore[attr-defined]
            return module
    return importlib.import_module(ref)


def resolve_user_extension(ref: str, workspace: Path) -> Setup:
    module = _load_module(ref, workspace)
    setup = getattr(module, "setup", None)
    if not callable(setup):
        raise TypeError("module has no top-level setup(api) function")
    return setup  # type: ignore[no-any-return]


async def _run_setup(spec: ExtensionSpec, services: HostServices) -> None:
    result = spec.setup(ExtensionAPI(spec.name, spec.builtin, services))
    if inspect.isawaitable(result):
        await result


async def load_all(services: HostServices, warn: Callable[[str], None]) -> list[str]:
    """Run every ``setup``; returns the names of the extensions that loaded."""
    loaded: list[str] = []
    for spec in builtin_specs():
        try:
            await _run_setup(spec, services)
        except InvocationError:
            raise
        except Exception as exc:
            raise BuiltinExtensionError(f"built-in extension {spec.name} failed to load: {exc}") from exc
        loaded.append(spec.name)
    required = services.config.harness.extensions_required
    registry = services.registry
    for ref in services.config.harness.extensions:
        saved = (
            {k: list(v) for k, v in registry.handlers.items()},
            dict(registry.tools),
            dict(registry.providers),
        )
        try:
            setup = resolve_user_extension(ref, services.workspace)
            await _run_setup(ExtensionSpec(ref, setup, False), services)
        except Exception as exc:
            registry.handlers, registry.tools, registry.providers = saved  # nothing of it stays registered
            reason = f"{type(exc).__name__}: {exc}"
            if required:
                raise InvocationError(
                    f"extension {ref} failed to load: {reason} (harness.extensions-required is true)"
                ) from exc
            warn(f"extension {ref} skipped: {reason}")
            services.state.degrade(
                "extensions",
                f"extension {ref} was skipped: {reason}",
                "fix the extension or remove it from harness.extensions",
            )
            continue
        loaded.append(ref)
    return loaded
