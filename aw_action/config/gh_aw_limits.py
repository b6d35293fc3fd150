"""The limits a compiled gh-aw agent step hands its engine, read and checked once.

Variables (gh-aw ``pkg/workflow/*_engine.go``, ``engine_helpers.go``; smoke-pi lock file):

- ``GH_AW_TIMEOUT_MINUTES``: the step's ``timeout-minutes`` (default 20); a positive number.
  Counted from ``/tmp/gh-aw/agent_cli_start_ms.txt`` when that file exists: the step writes the
  epoch milliseconds there before AWF starts, so the harness's start-up inside the sandbox is
  already spent. Without the file the clock starts at ``now``.
- each budget kind's ``gh_aw_env`` (``run/budget_kinds.py``: turns, tool calls, AI credits):
  a positive integer for a counted kind, else a positive number; the row's ``gh_aw_off``
  (``-1`` for AI credits, which AWF enforces at its proxy too) disables it. gh-aw exports
  ``GH_AW_MAX_TURNS`` empty when nothing is configured.
- ``GH_AW_MAX_TOOL_DENIALS``: a positive integer (no budget kind uses it).
- ``GH_AW_PHASE`` (``agent``/``detection``/...), ``GH_AW_VERSION``, ``GITHUB_AW`` (``true``).

Empty means unset. Anything else that is not a finite number of the right kind is an error that
names the variable (``GhAwEnvError``, an invocation error for the caller): a limit that cannot be
read must never silently become "no limit".
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path

from aw_action.environment.tuning import AGENT_START_FILE
from aw_action.lazy_dataclass import dataclass
from aw_action.run.budget_kinds import BUDGET_KINDS, BudgetKind
from aw_action.run.config import MAX_TIMEOUT_MINUTES
from aw_action.run.mode import gh_aw_mode

START_FILE = Path("/tmp/gh-aw/agent_cli_start_ms.txt")
START_FILE_ENV = AGENT_START_FILE.name
"""Replaces ``START_FILE`` (tests, or a step that writes the file elsewhere)."""
MAX_SAFE_INTEGER = 2**53 - 1
_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")
"""ASCII digits only: ``float()`` would also take other scripts' digits and ``1_000``."""


class GhAwEnvError(ValueError):
    """A ``GH_AW_*`` value (or the start file) that cannot be used; the message names it."""


@dataclass(frozen=True)
class GhAwLimits:
    in_gh_aw: bool = False
    phase: str | None = None
    version: str | None = None
    timeout_minutes: float | None = None
    started_at_ms: int | None = None
    """When the step started the agent (``agent_cli_start_ms.txt``), or None (count from now)."""
    max_tool_denials: int | None = None
    budgets: Mapping[str, float] = field(default_factory=dict)
    """Each budget kind's ``gh_aw_env`` that is set (but the timeout's) -> its limit."""

    def deadline_ms(self, now_ms: int) -> int | None:
        """Epoch ms at which the step's time is up, or None without a timeout. A start time in the
        future (clock skew) counts from ``now`` instead: skew must never lengthen the run."""
        if self.timeout_minutes is None:
            return None
        start = now_ms if self.started_at_ms is None else min(self.started_at_ms, now_ms)
        return start + round(self.timeout_minutes * 60_000)

    def remaining_minutes(self, now_ms: int) -> float | None:
        """Minutes left at ``now_ms`` (0 when already past the deadline), or None."""
        deadline = self.deadline_ms(now_ms)
        return None if deadline is None else max(0.0, (deadline - now_ms) / 60_000)

    def limit(self, variable: str, now_ms: int) -> float | None:
        """The limit ``variable`` set, None when unset. The timeout is the time left at ``now_ms``;
        a step whose time is already up is a ``GhAwEnvError``: no limit must never stand for none."""
        if variable != TIMEOUT_ENV:
            return self.budgets.get(variable)
        remaining = self.remaining_minutes(now_ms)
        if remaining is not None and not remaining:
            raise GhAwEnvError(f"{TIMEOUT_ENV}: the agent step's time is already up (counted from {START_FILE.name})")
        return remaining


TIMEOUT_ENV: str = next(k.gh_aw_env for k in BUDGET_KINDS if k.gate == "deadline" and k.gh_aw_env)
"""The deadline kind's ``gh_aw_env``: counted from the start file, read apart."""


def stricter(*limits: float | None) -> float | None:
    """The smallest limit set, or None when none is: where config.json and gh-aw both set one,
    the stricter wins."""
    present = [v for v in limits if v is not None]
    return min(present) if present else None


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None


def _number(name: str, raw: str) -> float:
    if not _DECIMAL.fullmatch(raw):
        raise GhAwEnvError(f"{name}: not a number: {raw!r}")
    value = float(raw)
    if not math.isfinite(value):
        raise GhAwEnvError(f"{name}: not a finite number: {raw!r}")
    return value


def positive_number(env: Mapping[str, str], name: str) -> float | None:
    raw = _text(env, name)
    if raw is None:
        return None
    value = _number(name, raw)
    if value <= 0:
        raise GhAwEnvError(f"{name}: must be greater than 0, got {raw!r}")
    return value


def positive_int(env: Mapping[str, str], name: str) -> int | None:
    raw = _text(env, name)
    if raw is None:
        return None
    if not re.fullmatch(r"\+?[0-9]+", raw):
        raise GhAwEnvError(f"{name}: not a whole number: {raw!r}")
    value = int(raw)
    if not 0 < value <= MAX_SAFE_INTEGER:
        raise GhAwEnvError(f"{name}: must be between 1 and {MAX_SAFE_INTEGER}, got {raw!r}")
    return value


def budget_limit(env: Mapping[str, str], kind: BudgetKind) -> float | None:
    """The limit ``kind``'s ``gh_aw_env`` sets: a positive integer for a counted kind, else a
    positive number; the row's ``gh_aw_off`` (gh-aw's ``-1``) is no limit."""
    name = kind.gh_aw_env
    assert name is not None
    raw = _text(env, name)
    off = kind.gh_aw_off
    if raw is not None and off is not None and _DECIMAL.fullmatch(raw) and float(raw) == float(off):
        return None
    return positive_int(env, name) if kind.integer else positive_number(env, name)


def read_start_ms(path: Path) -> int | None:
    """The epoch ms in the start file, None when there is no file; malformed is an error."""
    try:
        raw = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise GhAwEnvError(f"{path}: unreadable: {exc}") from None
    if not re.fullmatch(r"[0-9]{1,16}", raw):
        raise GhAwEnvError(f"{path}: expected epoch milliseconds, got {raw[:40]!r}")
    return int(raw)


def start_file_from(env: Mapping[str, str]) -> Path:
    return Path(AGENT_START_FILE.text(env) or START_FILE)


def read_limits(env: Mapping[str, str], start_file: Path | None = None) -> GhAwLimits:
    """All of it, or ``GhAwEnvError`` for the first unusable value. The start file is
    ``start_file``, else ``AW_AGENT_START_FILE``, else gh-aw's ``/tmp/gh-aw/agent_cli_start_ms.txt``."""
    start_file = start_file or start_file_from(env)
    timeout = positive_number(env, TIMEOUT_ENV)
    if timeout is not None and timeout > MAX_TIMEOUT_MINUTES:
        raise GhAwEnvError(f"{TIMEOUT_ENV}: at most {MAX_TIMEOUT_MINUTES} (35 days), got {env[TIMEOUT_ENV]!r}")
    return GhAwLimits(
        in_gh_aw=gh_aw_mode(env),
        phase=_text(env, "GH_AW_PHASE"),
        version=_text(env, "GH_AW_VERSION"),
        timeout_minutes=timeout,
        started_at_ms=read_start_ms(start_file) if timeout is not None else None,
        max_tool_denials=positive_int(env, "GH_AW_MAX_TOOL_DENIALS"),
        budgets={
            kind.gh_aw_env: value
            for kind in BUDGET_KINDS
            if kind.gh_aw_env and kind.gh_aw_env != TIMEOUT_ENV and (value := budget_limit(env, kind)) is not None
        },
    )
