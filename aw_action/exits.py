"""The exit taxonomy: every way a run ends early is an exception that carries its exit code.

One place (``harness.run`` / ``cli.main``) maps these to the process exit code:
0 clean completion; 1 session failure; 2 invocation or infrastructure error (spec §5.3, §11.4).
"""

from __future__ import annotations

from typing import Literal

from aw_action.lazy_dataclass import dataclass

SettingKind = Literal["input", "config", "variable", "file", "argument"]


@dataclass(frozen=True)
class Setting:
    """What a person changes to fix an invocation error, as they write it: an action input
    (``max-turns``), a config.json key (``harness.budget.max-turns``), an environment variable
    (``GH_AW_MAX_TURNS``), a file or a command-line argument."""

    name: str
    kind: SettingKind


class HarnessError(Exception):
    exit_code = 1
    stop_reason = "error"


class InvocationError(HarnessError):
    """Bad input before any session exists: config, prompt, credentials, model, extensions."""

    exit_code = 2
    stop_reason = "invocation_error"

    def __init__(self, message: str = "", setting: Setting | None = None) -> None:
        super().__init__(message)
        self.setting = setting
        """The input, key, variable or file at fault, when one is (``run/explain.py`` names it)."""


class MissingCredentialsError(InvocationError):
    """No credential for the run's model. ``variables`` are where the catalog looks for one, so
    an entry point can say how its users set them (the action names its inputs)."""

    def __init__(self, message: str, model: str, variables: tuple[str, ...], hint: str | None = None) -> None:
        super().__init__(message)
        self.model = model
        self.variables = variables
        self.hint = hint
        """Why the credential may be missing (a fork's pull request gets no secrets), if known."""


class SdkLoadError(InvocationError):
    """A provider SDK (or another required module) cannot be imported (spec §11.2.1)."""

    stop_reason = "sdk_load_error"

    def __init__(self, module: str, detail: str) -> None:
        super().__init__(f"cannot load module {module!r}: {detail}")
        self.module = module
        self.detail = detail


class BuiltinExtensionError(InvocationError):
    """A built-in extension failed to load: always fatal (spec §11.2.3)."""

    stop_reason = "extension_error"
