"""Budget kinds as one table: each budget the harness enforces is declared here once.

A kind says what it is called (``name`` in records, ``label`` for people), where it is set
(``config_path`` in config.json, ``action_input`` in action.yml, an optional environment
fallback for standalone runs, the ``GH_AW_*`` variable gh-aw sets for it in gh-aw mode, where
the stricter of it and config.json wins: both applied by ``config/environment.py``), how its usage counts
(``used``), which gate enforces it (``gate``), the stop reason
when it runs out, and which steering notice type warns before it (None: no notices). The cost
tracker, steering, the step summary, the records, the outputs and the action-input parser all
loop over ``BUDGET_KINDS``; adding a kind is a row here, a config field and its docs.

Gates (who enforces what, and when):
- ``amount`` (cost tracker): no request starts once usage reached the critical percent of
  the limit, and each request's ``max_tokens`` is lowered so that its worst case fits what is
  left of the limit (refused when not even a minimal answer fits);
- ``turns`` (cost tracker): the request that would start turn N+1 is refused;
- ``tool_calls`` (cost tracker): call N+1 is blocked before it runs and the run stops;
- ``deadline`` (steering): the soft-deadline timer stops the run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from aw_action.lazy_dataclass import dataclass
from aw_action.run.config import RunConfig

if TYPE_CHECKING:
    from aw_action.run.state import RunState

Gate = Literal["amount", "turns", "tool_calls", "deadline"]
SteeringType = Literal["timeout", "ai_credit", "token"]
"""The steering notice types (``extensions/notices.py``), one ladder each."""


@dataclass(frozen=True)
class BudgetKind:
    name: str
    label: str
    config_path: tuple[str, ...]
    action_input: str
    used: Callable[[RunState], float | None]
    gate: Gate
    stop_reason: str
    steering: SteeringType | None
    """The notice type that warns before this budget runs out (``extensions/notices.py``)."""
    integer: bool = False
    """Counted in whole units (turns, calls): the config and the input take integers."""
    env: str | None = None
    """Standalone runs: an environment variable that sets the limit when config.json does not."""
    gh_aw_env: str | None = None
    """gh-aw mode: the variable gh-aw's agent step sets for this limit; the stricter of it and
    config.json is written into the config when it is resolved (``config/environment.py``)."""
    always_shown: bool = False
    """The step summary shows a row even without a limit (what was used still matters)."""
    decimals: int = 0
    limit_name: str = ""
    """The limit in a sentence (``the effective-token limit``), for explanations (``run/explain.py``)."""
    gate_stop: str = ""
    """A counting gate (``turns``, ``tool_calls``): why its stop came where it did, the end of the
    explanation's sentence (``run/explain.py``). The cost tracker records such a stop with the
    kind's ``stop_reason`` as its ``trigger``."""
    gh_aw_off: str | None = None
    """gh-aw mode: the value of ``gh_aw_env`` that means no limit (gh-aw's ``-1`` for AI credits);
    any other value must be a positive number (``config/gh_aw_limits.py``)."""

    @property
    def config_key(self) -> str:
        return ".".join(self.config_path)

    def configured(self, config: RunConfig) -> float | None:
        """The limit ``config`` sets, if any."""
        holder, name = self.field(config)
        value = getattr(holder, name)
        return None if value is None else float(value)

    def set_limit(self, config: RunConfig, value: float | None) -> None:
        """Write ``value`` as this kind's limit in ``config`` (whole for counted kinds)."""
        holder, name = self.field(config)
        setattr(holder, name, int(value) if self.integer and value is not None else value)

    def field(self, config: RunConfig) -> tuple[BaseModel, str]:
        """The model in ``config`` that holds this kind's limit and the field's name: the one
        walk of ``config_path`` over a typed config."""
        node: BaseModel = config
        *parents, leaf = (part.replace("-", "_") for part in self.config_path)
        for part in parents:
            node = getattr(node, part)
        return node, leaf


BUDGET_KINDS: tuple[BudgetKind, ...] = (
    BudgetKind(
        name="effective_tokens",
        label="Effective tokens",
        config_path=("harness", "budget", "max-effective-tokens"),
        action_input="max-effective-tokens",
        used=lambda s: s.ledger.effective_tokens,
        gate="amount",
        stop_reason="budget_exceeded",
        steering="token",
        always_shown=True,
        limit_name="effective-token limit",
    ),
    BudgetKind(
        name="ai_credits",
        label="AI credits",
        config_path=("harness", "budget", "max-ai-credits"),
        action_input="max-ai-credits",
        used=lambda s: s.ledger.ai_credits,
        gate="amount",
        stop_reason="budget_exceeded",
        steering="ai_credit",
        env="GH_AW_MAX_AI_CREDITS",
        gh_aw_env="GH_AW_MAX_AI_CREDITS",
        gh_aw_off="-1",
        always_shown=True,
        decimals=2,
        limit_name="AI-credit limit",
    ),
    BudgetKind(
        name="turns",
        label="Turns",
        config_path=("harness", "budget", "max-turns"),
        action_input="max-turns",
        used=lambda s: float(len(s.ledger.turns)),
        gate="turns",
        stop_reason="max_turns",
        steering=None,
        integer=True,
        gh_aw_env="GH_AW_MAX_TURNS",
        limit_name="turn limit",
        gate_stop="the agent had not finished when its last turn ended.",
    ),
    BudgetKind(
        name="tool_calls",
        label="Tool calls",
        config_path=("harness", "budget", "max-tool-calls"),
        action_input="max-tool-calls",
        used=lambda s: float(s.ledger.tool_calls),
        gate="tool_calls",
        stop_reason="max_tool_calls",
        steering=None,
        integer=True,
        gh_aw_env="GH_AW_MAX_TOOL_CALLS",
        limit_name="tool-call limit",
        gate_stop="the next tool call was blocked before it ran.",
    ),
    BudgetKind(
        name="minutes",
        label="Time (minutes)",
        config_path=("timeout-minutes",),
        action_input="timeout-minutes",
        used=lambda s: s.elapsed_ms / 60000.0,
        gate="deadline",
        stop_reason="timeout",
        steering="timeout",
        gh_aw_env="GH_AW_TIMEOUT_MINUTES",
        decimals=2,
        limit_name="time limit",
    ),
)
KINDS_BY_NAME: dict[str, BudgetKind] = {kind.name: kind for kind in BUDGET_KINDS}
STOP_REASONS: frozenset[str] = frozenset(kind.stop_reason for kind in BUDGET_KINDS)
KINDS_BY_STOP_REASON: dict[str, BudgetKind] = {}
"""A stop reason -> the first kind that stops with it (``budget_exceeded`` is shared by the
``amount`` kinds: the cost tracker's record names which one)."""
for _kind in BUDGET_KINDS:
    KINDS_BY_STOP_REASON.setdefault(_kind.stop_reason, _kind)


@dataclass(frozen=True)
class Limit:
    """One configured budget. ``critical_percent`` is where an ``amount`` gate stops the run."""

    kind: BudgetKind
    limit: float
    critical_percent: float = 100.0

    @property
    def name(self) -> str:
        return self.kind.name

    @property
    def critical_point(self) -> float:
        return self.limit * self.critical_percent / 100.0

    def percent(self, used: float) -> float:
        return 100.0 * used / self.limit

    def exceeded(self, used: float) -> bool:
        """Reached the stop point (``critical_percent`` of the limit)."""
        return used >= self.critical_point


def resolve_limits(config: RunConfig) -> dict[str, Limit]:
    """The run's limits by kind name, as the resolved config holds them (the environment's limits
    are in it already: ``config/environment.py``). ``amount`` kinds stop at
    ``harness.steering.budget-critical-percent``."""
    critical = config.harness.steering.budget_critical_percent
    limits: dict[str, Limit] = {}
    for kind in BUDGET_KINDS:
        value = kind.configured(config)
        if value is not None:
            limits[kind.name] = Limit(kind, value, critical if kind.gate == "amount" else 100.0)
    return limits
