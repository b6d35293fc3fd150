"""The apply job's retry policy in isolation: what is retried, how long it waits, when it stops."""

from __future__ import annotations

import email.utils

import pytest
import requests
from github import GithubException, RateLimitExceededException

from aw_action.apply_outputs.github_api import RetryPolicy, is_retryable, server_wait_s, with_retries

NOW = 1_800_000_000.0


def flaky(errors: list[BaseException]) -> tuple[list[int], object]:
    calls: list[int] = []

    def call() -> str:
        calls.append(1)
        if errors:
            raise errors.pop(0)
        return "done"

    return calls, call


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (GithubException(429, {"message": "slow down"}, {}), True),
        (GithubException(502, {"message": "bad gateway"}, {}), True),
        (RateLimitExceededException(403, {"message": "API rate limit exceeded"}, {}), True),
        (GithubException(403, {"message": "secondary"}, {"Retry-After": "5"}), True),
        (GithubException(403, {"message": "quota"}, {"X-RateLimit-Remaining": "0"}), True),
        (GithubException(403, {"message": "Resource not accessible by integration"}, {}), False),
        (GithubException(404, {"message": "Not Found"}, {}), False),
        (GithubException(422, {"message": "Validation Failed"}, {}), False),
        (requests.ConnectionError("reset by peer"), True),
        (requests.Timeout("read timed out"), True),
        (FileNotFoundError("patch"), False),
        (ValueError("bug"), False),
    ],
)
def test_what_is_retried(exc: BaseException, expected: bool) -> None:
    assert is_retryable(exc) is expected


def test_server_wait_reads_retry_after_in_both_forms_and_the_reset_time() -> None:
    assert server_wait_s(GithubException(429, {}, {"retry-after": "12"}), NOW) == 12.0
    date = email.utils.formatdate(NOW + 30, usegmt=True)
    assert server_wait_s(GithubException(429, {}, {"Retry-After": date}), NOW) == pytest.approx(30, abs=1)
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(NOW) + 20)}
    assert server_wait_s(GithubException(403, {}, reset), NOW) == 21.0
    assert server_wait_s(GithubException(502, {}, {}), NOW) is None


def test_backoff_doubles_without_server_advice() -> None:
    sleeps: list[float] = []
    calls, call = flaky([requests.ConnectionError("x"), GithubException(500, {}, {}), GithubException(503, {}, {})])
    assert with_retries(call, RetryPolicy(), sleep=sleeps.append, clock=lambda: NOW) == "done"
    assert sleeps == [1.0, 2.0, 4.0] and len(calls) == 4


def test_attempts_run_out() -> None:
    sleeps: list[float] = []
    _, call = flaky([GithubException(500, {}, {}) for _ in range(10)])
    with pytest.raises(GithubException):
        with_retries(call, RetryPolicy(max_attempts=3), sleep=sleeps.append, clock=lambda: NOW)
    assert sleeps == [1.0, 2.0]


def test_the_total_wait_is_bounded() -> None:
    sleeps: list[float] = []
    errors: list[BaseException] = [GithubException(429, {}, {"Retry-After": "60"}) for _ in range(5)]
    _, call = flaky(errors)
    with pytest.raises(GithubException):
        with_retries(call, RetryPolicy(max_total_wait_s=150), sleep=sleeps.append, clock=lambda: NOW)
    assert sleeps == [60.0, 60.0]  # a third wait would pass 150 s in all


def test_a_wait_longer_than_allowed_is_not_made() -> None:
    sleeps: list[float] = []
    _, call = flaky([GithubException(429, {}, {"Retry-After": "3600"})])
    with pytest.raises(GithubException):
        with_retries(call, RetryPolicy(), sleep=sleeps.append, clock=lambda: NOW)
    assert sleeps == []


def test_other_errors_are_raised_at_once() -> None:
    sleeps: list[float] = []
    calls, call = flaky([GithubException(404, {"message": "Not Found"}, {})])
    with pytest.raises(GithubException):
        with_retries(call, RetryPolicy(), sleep=sleeps.append)
    assert sleeps == [] and len(calls) == 1
