"""The one retry layer for model requests, built on tenacity (the SDKs' own retries are off).

``run_with_retries(attempt, policy, report, abort)`` calls ``attempt()`` until it returns, raises
an error that is not a transient ``ProviderError``, the attempts run out, or ``abort`` is set.

Delay before retry n (1-based): the server's ``retry-after``/``retry-after-ms`` when given, else
``min(cap, base * 2**(n-1) + uniform(0, jitter))``; an ``unreachable`` endpoint is retried on its
own short schedule (``connect_attempts``, ``connect_delay_s``). A server asking for more than the cap
(``max_delay_s``) is not retried: sleeping less than it asked would only fail again.
Each retry is reported through ``report(attempt, status, delay_s, error)`` before the sleep,
and the sleep ends early when ``abort`` is set (no further attempt then starts).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)

from aw_action.ai.errors import Classified, ProviderError
from aw_action.ai.types import AbortSignal
from aw_action.environment import tuning
from aw_action.environment.tuning import Tunable, TuningError
from aw_action.lazy_dataclass import dataclass

T = TypeVar("T")
Report = Callable[[int, int | None, float, str], Awaitable[None]]


RetrySettingError = TuningError
"""A retry setting in the environment is not a number the policy can use; names the variable."""


@dataclass(frozen=True)
class RetryPolicy:
    """Defaults follow Pi (3 retries from 2 s, doubling) with a 60 s cap.

    An endpoint that cannot be reached at all (``unreachable``: connection refused, no such host)
    gets its own short policy, ``connect_attempts`` attempts ``connect_delay_s`` apart (doubling,
    no jitter): a proxy that is still starting gets a moment, a wrong URL fails in about a
    second instead of the minute the general policy would wait."""

    max_attempts: int = 4
    base_delay_s: float = 2.0
    max_delay_s: float = 60.0
    jitter_s: float = 1.0
    connect_attempts: int = 3
    connect_delay_s: float = 0.5

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RetryPolicy:
        """Tuning knobs: ``AW_RETRY_MAX_ATTEMPTS`` (a whole number >= 1), ``AW_RETRY_BASE_DELAY_MS``,
        ``AW_RETRY_MAX_DELAY_MS``, ``AW_RETRY_JITTER_MS`` (milliseconds >= 0), and for an endpoint
        that cannot be reached ``AW_RETRY_CONNECT_ATTEMPTS`` and ``AW_RETRY_CONNECT_DELAY_MS`` (a
        proxy that takes a while to start). Unset or blank keeps the default; anything else that
        is not such a number raises ``RetrySettingError``."""
        base = cls()

        def num(row: Tunable, default: float, scale: float = 1000.0) -> float:
            value = row.number(env)
            return default if value is None else value / scale

        return cls(
            max_attempts=int(num(tuning.RETRY_MAX_ATTEMPTS, base.max_attempts, 1.0)),
            base_delay_s=num(tuning.RETRY_BASE_DELAY_MS, base.base_delay_s),
            max_delay_s=num(tuning.RETRY_MAX_DELAY_MS, base.max_delay_s),
            jitter_s=num(tuning.RETRY_JITTER_MS, base.jitter_s),
            connect_attempts=int(num(tuning.RETRY_CONNECT_ATTEMPTS, base.connect_attempts, 1.0)),
            connect_delay_s=num(tuning.RETRY_CONNECT_DELAY_MS, base.connect_delay_s),
        )


def _is_transient(exc: BaseException) -> bool:
    return isinstance(exc, ProviderError) and exc.info.kind in ("transient", "unreachable")


def _unreachable(state: RetryCallState) -> bool:
    err = _info(state)
    return err is not None and err.info.kind == "unreachable"


def _info(state: RetryCallState) -> ProviderError | None:
    exc = state.outcome.exception() if state.outcome is not None else None
    return exc if isinstance(exc, ProviderError) else None


async def run_with_retries(
    attempt: Callable[[], Awaitable[T]], policy: RetryPolicy, report: Report, abort: AbortSignal
) -> T:
    """Run ``attempt`` under ``policy``; re-raises the last error when retries are exhausted."""
    backoff = wait_exponential(multiplier=policy.base_delay_s, max=policy.max_delay_s) + wait_random(0, policy.jitter_s)

    def wait(state: RetryCallState) -> float:
        err = _info(state)
        if _unreachable(state):
            return float(policy.connect_delay_s * 2 ** (state.attempt_number - 1))
        if err is not None and err.info.retry_after_s is not None:
            return err.info.retry_after_s
        return min(policy.max_delay_s, float(backoff(state)))

    def stop(state: RetryCallState) -> bool:
        err = _info(state)
        too_long = err is not None and (err.info.retry_after_s or 0.0) > policy.max_delay_s
        attempts = policy.connect_attempts if _unreachable(state) else policy.max_attempts
        return abort.aborted or too_long or stop_after_attempt(attempts)(state)

    async def before_sleep(state: RetryCallState) -> None:
        err = _info(state)
        status, error = (err.info.status, str(err)) if err else (None, "")
        await report(state.attempt_number, status, state.upcoming_sleep, error)

    async def sleep(seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(abort.wait(), timeout=seconds)

    retrying = AsyncRetrying(
        retry=retry_if_exception(_is_transient),
        stop=stop,
        wait=wait,
        before_sleep=before_sleep,
        sleep=sleep,
        reraise=True,
    )

    async def guarded() -> T:
        if abort.aborted:
            raise ProviderError(Classified("aborted", abort.reason or "Request was aborted"))
        return await attempt()

    return await retrying(guarded)
