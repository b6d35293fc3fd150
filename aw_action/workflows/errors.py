"""The workflow package's errors: each says which file, line and field is wrong, in one line."""

from __future__ import annotations

from collections.abc import Sequence

Path_ = Sequence[str | int]
UNSUPPORTED_PREFIX = "not supported by aw-harness: "


def format_path(path: Path_) -> str:
    """``("steps", "plan", "allow", 0)`` → ``steps.plan.allow[0]``; the root is ``(top level)``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part.replace("-", "").replace("_", "").isalnum():
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out or "(top level)"


class WorkflowError(Exception):
    """Base of every error this package raises on purpose."""


class WorkflowLoadError(WorkflowError):
    """A workflow file cannot be used: ``file:line: path: message``."""

    def __init__(self, file: str, line: int | None, path: Path_, message: str) -> None:
        self.file = file
        self.line = line
        self.path = tuple(path)
        self.message = message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {format_path(path)}: {message}")


class UnsupportedFeatureError(WorkflowLoadError):
    """The file uses a pi-workflows feature that needs a Pi-only integration."""

    def __init__(self, file: str, line: int | None, path: Path_, feature: str, more: int = 0) -> None:
        tail = f" (and {more} more unsupported setting{'s' if more > 1 else ''})" if more else ""
        super().__init__(file, line, path, f"{UNSUPPORTED_PREFIX}{feature}{tail}")


class CheckpointError(WorkflowError):
    """A checkpoint file is missing, malformed, from another version or does not fit the workflow."""


class EngineError(WorkflowError):
    """A transition the state machine refuses (wrong state, undeclared outcome, ...)."""
