"""PyGithub, set up for the apply job, and the one retry policy its calls go through (tenacity).

PyGithub's own urllib3 retries are off, so every retry is visible here. Retried: 429, 403 that is
a rate limit (PyGithub's ``RateLimitExceededException``, a ``Retry-After`` header or
``x-ratelimit-remaining: 0``), 5xx and dropped connections. The wait is the server's
``Retry-After`` when given, else the time to ``x-ratelimit-reset`` when the quota is spent, else
1 s, 2 s, 4 s ... A wait longer than ``max_wait_s``, or one that would take the total past
``max_total_wait_s``, is not made: the call fails at once and the record reports it.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from github import Auth, Github, GithubException
from tenacity import RetryCallState, Retrying, retry_if_exception

from aw_action.lazy_dataclass import dataclass

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    max_wait_s: float = 90.0
    max_total_wait_s: float = 180.0
    base_delay_s: float = 1.0


def _headers(exc: BaseException) -> dict[str, str]:
    raw: Mapping[str, Any] | None = getattr(exc, "headers", None)
    return {str(k).lower(): str(v) for k, v in (raw or {}).items()}


def _status(exc: BaseException) -> int | None:
    return exc.status if isinstance(exc, GithubException) else None


def _network_error(exc: BaseException) -> bool:
    """A dropped connection or a timeout: ``requests``' errors (PyGithub's transport) are
    ``OSError`` subclasses from the ``requests``/``urllib3`` modules."""
    module = type(exc).__module__.split(".")[0]
    return isinstance(exc, ConnectionError | TimeoutError) or (
        isinstance(exc, OSError) and module in ("requests", "urllib3")
    )


def is_retryable(exc: BaseException) -> bool:
    if _network_error(exc):
        return True
    status = _status(exc)
    if status is None:
        return False
    if status == 429 or status >= 500:
        return True
    headers = _headers(exc)
    rate_limited = "retry-after" in headers or headers.get("x-ratelimit-remaining") == "0"
    return status == 403 and (rate_limited or type(exc).__name__ == "RateLimitExceededException")


def server_wait_s(exc: BaseException, now: float) -> float | None:
    """What the server asked for: ``Retry-After`` (seconds or an HTTP date), or the time until
    ``x-ratelimit-reset`` when the quota is spent; ``None`` when it said nothing."""
    headers = _headers(exc)
    value = headers.get("retry-after", "").strip()
    if value:
        if value.isdigit():
            return float(value)
        try:
            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - now)
        except (TypeError, ValueError):
            pass
    reset = headers.get("x-ratelimit-reset", "")
    if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
        return max(0.0, float(reset) - now) + 1.0
    return None


def with_retries(
    call: Callable[[], T],
    policy: RetryPolicy | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.time,
    on_retry: Callable[[int, float, BaseException], None] | None = None,
) -> T:
    """``call()`` under ``policy``; the last error is re-raised when it gives up."""
    policy = policy or RetryPolicy()

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = server_wait_s(exc, clock()) if exc is not None else None
        return asked if asked is not None else policy.base_delay_s * 2 ** (state.attempt_number - 1)

    def stop(state: RetryCallState) -> bool:
        upcoming = state.upcoming_sleep
        return (
            state.attempt_number >= policy.max_attempts
            or upcoming > policy.max_wait_s
            or state.idle_for + upcoming > policy.max_total_wait_s
        )

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        if on_retry is not None and exc is not None:
            on_retry(state.attempt_number, state.upcoming_sleep, exc)

    retrying = Retrying(
        retry=retry_if_exception(is_retryable),
        wait=wait,
        stop=stop,
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )
    return retrying(call)


def connect(token: str, api_url: str, *, write_interval_s: float = 1.0, timeout_s: int = 30) -> Github:
    """A client with PyGithub's retries off (ours are above). Writes are spaced by
    ``write_interval_s``, GitHub's advice against secondary rate limits."""
    return Github(
        auth=Auth.Token(token),
        base_url=api_url,
        timeout=timeout_s,
        retry=None,
        seconds_between_requests=None,
        seconds_between_writes=write_interval_s or None,
        lazy=True,
        per_page=100,
    )


def describe(exc: BaseException) -> str:
    """A one-line reason for a failed call (GitHub's message, never headers or the token)."""
    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        message = data.get("message") or exc.message or "request failed"
        errors = data.get("errors")
        detail = f" ({errors})" if errors else ""
        return f"GitHub answered {exc.status}: {message}{detail}"[:500]
    return f"{type(exc).__name__}: {exc}"[:500]
