"""Loading extensions: the built-ins first, then the user's ``harness.extensions`` (spec §6.1.4).

A user reference is ``./file.py`` or ``../file.py`` (relative to the workspace; an absolute path
or any ``*.py`` path works too), the name of an entry point in group ``aw_harness.extensions``,
or an importable module name. Each must provide a top-level ``setup(api)`` (sync or async).

Policy (spec §11.2.3):
- a built-in that fails to load fails the invocation (``BuiltinExtensionError``, exit 2);
- a user extension that cannot be imported, has no ``setup``, raises from ``setup`` (even
  ``SystemExit``), or tampers with what the built-ins registered is skipped: nothing it
  registered stays, a warning names the reference and the reason, and the run is marked
  degraded; with ``harness.extensions-required: true`` it fails the invocation instead
  (``InvocationError``, exit 2), before any session exists; an async ``setup`` that takes longer
  than ``SETUP_TIMEOUT_S`` fails (loading comes before the run's deadline timer starts);
- user handlers are wrapped so that even ``SystemExit`` from one is an ordinary handler error,
  which the runner isolates.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Awaitable, Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType
from typing import Any

from aw_action.exits import BuiltinExtensionError, InvocationError
from aw_action.extensions.api import ExtensionAPI, HostServices
from aw_action.extensions.registry import Handler
from aw_action.lazy_dataclass import dataclass

Setup = Callable[[ExtensionAPI], Any]
ENTRY_POINT_GROUP = "aw_harness.extensions"
MODULE_PREFIX = "aw_harness_user_extension_"
SETUP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class ExtensionSpec:
    name: str
    setup: Setup
    builtin: bool


class ExtensionLoadError(Exception):
    """A user extension could not be used; the message is the reason shown to the user."""


def builtin_specs() -> list[ExtensionSpec]:
    """The built-ins in load order (``builtins.BUILTINS``)."""
    from aw_action.extensions import builtins

    return [ExtensionSpec(name, setup, True) for name, setup in builtins.BUILTINS]


def is_path_reference(ref: str) -> bool:
    return ref.startswith(("./", "../", "/")) or ref.endswith(".py")


def is_entry_point(ref: str) -> bool:
    """Whether ``ref`` names an installed entry point of ``ENTRY_POINT_GROUP``."""
    return any(ep.name == ref for ep in entry_points(group=ENTRY_POINT_GROUP))


def _load_file(ref: str, workspace: Path, index: int) -> ModuleType:
    path = (workspace / ref).resolve()
    if not path.is_file():
        raise ExtensionLoadError(f"file not found: {path}")
    name = f"{MODULE_PREFIX}{index}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ExtensionLoadError(f"cannot import {path} (not a Python file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _load_named(ref: str) -> ModuleType:
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == ref:
            loaded = ep.load()
            if isinstance(loaded, ModuleType):
                return loaded
            module = ModuleType(ref)
            module.setup = loaded  # type: ignore[attr-defined]
            return module
    try:
        return importlib.import_module(ref)
    except ModuleNotFoundError as exc:
        if exc.name and ref.startswith(exc.name):
            raise ExtensionLoadError(
                f"no module named {ref!r} and no entry point {ref!r} in group {ENTRY_POINT_GROUP}"
            ) from exc
        raise


def resolve_user_extension(ref: str, workspace: Path, index: int = 0) -> Setup:
    """Import ``ref`` and return its ``setup``; raises with the reason on any failure."""
    module = _load_file(ref, workspace, index) if is_path_reference(ref) else _load_named(ref)
    setup = getattr(module, "setup", None)
    if not callable(setup):
        raise ExtensionLoadError("it defines no top-level setup(api) function")
    return setup  # type: ignore[no-any-return]


async def _run_setup(spec: ExtensionSpec, services: HostServices) -> None:
    services.state.record.setting_up = spec.name
    result = spec.setup(ExtensionAPI(spec.name, spec.builtin, services))
    if not inspect.isawaitable(result):
        return
    if spec.builtin:
        await result
        return
    task = asyncio.ensure_future(_exit_as_error(result, "setup"))
    done, _ = await asyncio.wait({task}, timeout=SETUP_TIMEOUT_S)
    if not done:
        task.cancel()
        raise ExtensionLoadError(f"its setup did not finish within {SETUP_TIMEOUT_S:g} s")
    task.result()


async def _exit_as_error(pending: Awaitable[Any], what: str) -> Any:
    """``SystemExit`` from user code becomes an ordinary error (raised in a task, it would stop
    the event loop, and with it the run, without a record)."""
    try:
        return await pending
    except SystemExit as exc:
        raise RuntimeError(f"extension {what} called exit({exc.code})") from None


def _contain(handler: Handler) -> Handler:
    """``SystemExit`` from a user handler becomes an ordinary error the runner isolates."""

    if getattr(handler, "aw_contained", False):
        return handler

    @functools.wraps(handler)
    def contained(event: Any, ctx: Any) -> Any:
        try:
            result = handler(event, ctx)
        except SystemExit as exc:
            raise RuntimeError(f"extension handler called exit({exc.code})") from None
        return _exit_as_error(result, "handler") if inspect.isawaitable(result) else result

    contained.aw_contained = True  # type: ignore[attr-defined]
    return contained


async def load_all(services: HostServices, added: Sequence[ExtensionSpec] = ()) -> list[str]:
    """Run every ``setup``; returns the names of the extensions that loaded. ``added``: built-ins
    an invocation adds after the standard ones (a replay's), under the built-ins' policy."""
    loaded: list[str] = []
    for spec in [*builtin_specs(), *added]:
        try:
            await _run_setup(spec, services)
        except InvocationError:
            raise
        except (Exception, SystemExit) as exc:
            raise BuiltinExtensionError(f"built-in extension {spec.name} failed to load: {exc}") from exc
        loaded.append(spec.name)
    registry = services.registry
    builtins = registry.snapshot()
    required = services.config.harness.extensions_required
    for index, ref in enumerate(services.config.harness.extensions):
        before = registry.snapshot()
        try:
            setup = resolve_user_extension(ref, services.workspace, index)
            await _run_setup(ExtensionSpec(ref, setup, False), services)
            tampered = registry.tampering(builtins)
            if tampered:
                raise ExtensionLoadError(f"{tampered}, which user extensions may not do")
        except (Exception, SystemExit) as exc:
            registry.restore(before)  # nothing of it stays registered
            reason = str(exc) if isinstance(exc, ExtensionLoadError) else f"{type(exc).__name__}: {exc}"
            if required:
                raise InvocationError(
                    f"extension {ref} failed to load: {reason} (harness.extensions-required is true)"
                ) from exc
            services.state.journal.warn(f"extension {ref} skipped: {reason}")
            services.state.journal.degrade(
                "extensions",
                f"extension {ref} was skipped: {reason}",
                "fix the extension or remove it from harness.extensions",
            )
            continue
        registry.wrap_handlers(ref, _contain)
        loaded.append(ref)
    services.state.record.setting_up = None
    return loaded
