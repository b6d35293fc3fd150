"""The harness's own tuning variables: one table (``TUNING``), one reader (``Tunable.number`` /
``Tunable.text``).

Each row names the variable, its type, its default, its bounds and what a bad value is: an
``error`` (``TuningError``: an invocation error, exit 2, one line naming the variable) or a
``warning`` (the default is used; the line goes to the caller's ``warn`` when it gives one).
Unset or blank is the default. A number is written in ASCII as JSON or C writes one (no ``inf``,
``nan``, ``1_000`` or another script's digits), within its row's bounds: every kind but text has an
upper bound, past which a value is no tuning but a mistake (``1e308`` milliseconds between two
GitHub writes overflowed the sleep that waits them out).
A default of ``None`` means the reading module's own default (the row's ``doc`` names it),
passed to the reader.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Literal

from aw_action.exits import InvocationError, Setting
from aw_action.lazy_dataclass import dataclass

Kind = Literal["seconds", "milliseconds", "whole", "text"]
OnBad = Literal["error", "warning"]

DEFAULT_OUTPUT_DIR = "/tmp/gh-aw"
"""Where the records go when nothing names a folder (gh-aw's own folder)."""

_EXPECTED = {
    "seconds": "a positive number of seconds, at most a day (86400)",
    "milliseconds": "a number of milliseconds, at least 0, at most a day (86400000)",
    "whole": "a whole number",
    "text": "text",
}
_MOST: dict[Kind, float] = {"seconds": 86_400.0, "milliseconds": 86_400_000.0, "whole": 1_000_000.0}
"""Each kind's upper bound unless its row has its own (``Tunable.most``)."""
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class TuningError(InvocationError, ValueError):
    """A tuning variable holds a bad value (its row says ``error``)."""


@dataclass(frozen=True)
class Tunable:
    """One tuning variable: its name, type, default, bounds and what a bad value is."""

    name: str
    kind: Kind
    default: float | str | None
    doc: str
    least: float | None = None
    """The smallest value allowed (``above``: excluded)."""
    most: float | None = None
    """The largest value allowed (its kind's, ``_MOST``, when None)."""
    above: bool = False
    on_bad: OnBad = "error"
    expected: str = ""
    """What a bad value is told it should be (the kind's wording when blank)."""

    def text(self, env: Mapping[str, str]) -> str | None:
        """The value stripped; unset or blank is the default."""
        value = (env.get(self.name) or "").strip()
        return value or (self.default if isinstance(self.default, str) else None)

    def number(
        self, env: Mapping[str, str], default: float | None = None, warn: Callable[[str], None] | None = None
    ) -> float | None:
        """The value in the variable's own unit; unset or blank is the row's default (or
        ``default`` where the row leaves it to the reader). A bad value is the row's ``on_bad``."""
        fallback = self.default if isinstance(self.default, float) else default
        raw = (env.get(self.name) or "").strip()
        if not raw:
            return fallback
        value = float(raw) if _NUMBER.fullmatch(raw) else math.nan
        if self.fits(value):
            return value
        line = f"{self.name}: expected {self.expected or _EXPECTED[self.kind]}, got {raw[:40]!r}"
        if self.on_bad == "error":
            raise TuningError(line, Setting(self.name, "variable"))
        if warn is not None:
            warn(f"{line}; using the default")
        return fallback

    def fits(self, value: float) -> bool:
        """Finite, whole where the row wants it, within the bounds."""
        if not math.isfinite(value) or (self.kind == "whole" and not value.is_integer()):
            return False
        most = self.most if self.most is not None else _MOST.get(self.kind)
        if most is not None and value > most:
            return False
        return self.least is None or (value > self.least if self.above else value >= self.least)


def _seconds(name: str, doc: str, on_bad: OnBad = "error") -> Tunable:
    return Tunable(name, "seconds", None, doc, least=0, above=True, on_bad=on_bad)


def _ms(name: str, doc: str) -> Tunable:
    return Tunable(name, "milliseconds", None, doc, least=0)


def _attempts(name: str, doc: str) -> Tunable:
    return Tunable(name, "whole", None, doc, least=1, most=100, expected="a whole number of attempts, 1 to 100")


def _text(name: str, doc: str, default: str | None = None) -> Tunable:
    return Tunable(name, "text", default, doc)


OUTPUT_DIR = _text("AW_OUTPUT_DIR", "the output folder of the run's records", DEFAULT_OUTPUT_DIR)
PROVIDER_TIMEOUT_S = _seconds("AW_PROVIDER_TIMEOUT_S", "a model request's timeout (ai/sdk_provider.DEFAULT_TIMEOUT_S)")
OTLP_TIMEOUT_S = _seconds("AW_OTLP_TIMEOUT_S", "the OTLP exporter's timeout (sinks/otel.py, kept within 0.1-30)")
REFLECT_TIMEOUT_S = _seconds("AW_REFLECT_TIMEOUT_S", "AWF /reflect discovery's timeout (ai/awf_reflect.py)", "warning")
REFLECT_URL = _text("AW_REFLECT_URL", "AWF's /reflect address instead of the ones derived from the base URLs")
RETRY_MAX_ATTEMPTS = _attempts("AW_RETRY_MAX_ATTEMPTS", "a model request's attempts (ai/retry.RetryPolicy)")
RETRY_BASE_DELAY_MS = _ms("AW_RETRY_BASE_DELAY_MS", "the first retry's delay")
RETRY_MAX_DELAY_MS = _ms("AW_RETRY_MAX_DELAY_MS", "the longest retry delay")
RETRY_JITTER_MS = _ms("AW_RETRY_JITTER_MS", "the random part of a retry delay")
RETRY_CONNECT_ATTEMPTS = _attempts("AW_RETRY_CONNECT_ATTEMPTS", "attempts at an endpoint that cannot be reached")
RETRY_CONNECT_DELAY_MS = _ms("AW_RETRY_CONNECT_DELAY_MS", "the delay between those attempts")
GITHUB_WRITE_INTERVAL_MS = Tunable(
    "AW_GITHUB_WRITE_INTERVAL_MS",
    "milliseconds",
    1000.0,
    "the apply job's pause between GitHub writes",
    least=0,
    on_bad="warning",
)
SANDBOX_ABI_LIMIT = Tunable(
    "AW_SANDBOX_ABI_LIMIT",
    "whole",
    None,
    "the highest Landlock ABI the harness uses (0: none)",
    least=0,
    expected="a whole number (the highest Landlock ABI to use)",
)
ARTIFACT_STAGE = _text(
    "AW_ARTIFACT_STAGE",
    "a folder the run's records are copied into, scrubbed, for a later step to upload (the runner-side action)",
)
AGENT_START_FILE = _text("AW_AGENT_START_FILE", "gh-aw's agent start time file (config/gh_aw_limits.py)")
FAUX_SCRIPT = _text("AW_FAUX_SCRIPT", "the faux provider's script (harness.faux-script's fallback)")
HARNESS_CONFIG = _text("AW_HARNESS_CONFIG", "aw-harness gh-aw: the config file")
HARNESS_MODEL = _text("AW_HARNESS_MODEL", "aw-harness gh-aw: the model")
SAFE_OUTPUTS_CONFIG = _text("AW_SAFE_OUTPUTS_CONFIG", "aw-harness safe-output: the safe-outputs config file")
SAFE_OUTPUTS_RUN_ID = _text("AW_SAFE_OUTPUTS_RUN_ID", "the apply job: the run whose records it applies")

TUNING: tuple[Tunable, ...] = (
    OUTPUT_DIR,
    PROVIDER_TIMEOUT_S,
    OTLP_TIMEOUT_S,
    REFLECT_TIMEOUT_S,
    REFLECT_URL,
    RETRY_MAX_ATTEMPTS,
    RETRY_BASE_DELAY_MS,
    RETRY_MAX_DELAY_MS,
    RETRY_JITTER_MS,
    RETRY_CONNECT_ATTEMPTS,
    RETRY_CONNECT_DELAY_MS,
    GITHUB_WRITE_INTERVAL_MS,
    SANDBOX_ABI_LIMIT,
    AGENT_START_FILE,
    FAUX_SCRIPT,
    HARNESS_CONFIG,
    HARNESS_MODEL,
    SAFE_OUTPUTS_CONFIG,
    SAFE_OUTPUTS_RUN_ID,
)
"""Every tuning variable of the harness's own, one row each."""
