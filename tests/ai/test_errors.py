"""Error classification: what is retried, what goes to compaction, what ends the run."""

from __future__ import annotations

import httpx2
import pytest

from aw_action.ai.errors import IncompleteStreamError, classify, classify_status, retry_after_seconds


class FakeStatusError(Exception):
    def __init__(self, status: int, message: str, body: object = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.message = message
        self.body = body


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504, 529])
def test_transient_statuses_are_retried(status: int) -> None:
    assert classify_status(status, "Error code: something").kind == "transient"


@pytest.mark.parametrize("status", [400, 404, 409, 413, 422, 425, 501])
def test_every_other_status_is_fatal(status: int) -> None:
    assert classify_status(status, "Error code: something went wrong").kind == "fatal"


@pytest.mark.parametrize(
    "text",
    [
        "prompt is too long: 201234 tokens > 200000 maximum",
        "This model's maximum context length is 128000 tokens",
        "Your input exceeds the context window of this model",
        "context_length_exceeded",
        "request_too_large: Request exceeds the maximum size",
    ],
)
def test_overflow_phrases(text: str) -> None:
    assert classify_status(400, text).kind == "overflow"


def test_a_rate_limit_mentioning_tokens_is_not_an_overflow() -> None:
    assert classify_status(429, "Rate limit: too many tokens per minute").kind == "transient"


def test_empty_400_and_413_bodies_count_as_overflow() -> None:
    assert classify_status(413, "Error code: 413").kind == "overflow"
    assert classify_status(400, "Error code: 400 - None").kind == "overflow"
    assert classify_status(400, "Error code: 400 - {'error': 'tools.0: invalid schema'}").kind == "fatal"


@pytest.mark.parametrize("text", ["insufficient_quota: You exceeded your current quota", "credit balance is too low"])
def test_quota_errors_are_fatal_even_as_429(text: str) -> None:
    assert classify_status(429, text).kind == "fatal"


def test_a_refused_credential_is_auth_and_a_bad_request_fatal() -> None:
    assert classify_status(401, "invalid x-api-key").kind == "auth"
    assert classify_status(403, "permission_error: Your API key does not have permission").kind == "auth"
    assert classify_status(404, "model not found").kind == "fatal"
    assert classify_status(403, "insufficient_quota: billing").kind == "fatal"  # quota wins: not the key's fault


def test_error_events_inside_a_200_stream_use_their_type() -> None:
    assert (
        classify(FakeStatusError(200, "{'type': 'overloaded_error'}", {"error": {"type": "overloaded_error"}})).kind
        == "transient"
    )
    assert classify(FakeStatusError(200, "bad", {"error": {"type": "invalid_request_error"}})).kind == "fatal"


def test_transport_errors_and_incomplete_streams_are_transient() -> None:
    # The SDKs do not wrap errors raised while the body is read: the raw httpx2 class arrives.
    info = classify(httpx2.RemoteProtocolError("peer closed connection (incomplete chunked read)"))
    assert info.kind == "transient" and info.status is None and "RemoteProtocolError" in info.message
    assert classify(httpx2.ReadTimeout("timed out")).kind == "transient"
    assert classify(ConnectionRefusedError("refused")).kind == "unreachable"
    assert classify(IncompleteStreamError("stream ended before message_stop")).kind == "transient"
    assert classify(ValueError("a bug")).kind == "fatal"


def test_a_connection_that_cannot_be_opened_is_unreachable_wherever_it_sits_in_the_chain() -> None:
    """The SDKs raise their ``APIConnectionError`` from httpx's ``ConnectError``."""

    class APIConnectionError(Exception):
        pass

    try:
        try:
            raise httpx2.ConnectError("[Errno 111] Connection refused")
        except httpx2.ConnectError as inner:
            raise APIConnectionError("Connection error.") from inner
    except APIConnectionError as outer:
        info = classify(outer)
    assert info.kind == "unreachable"
    assert info.message == "APIConnectionError: Connection error. (ConnectError: [Errno 111] Connection refused)"
    assert classify(httpx2.ConnectTimeout("timed out")).kind == "unreachable"
    assert classify(httpx2.ReadTimeout("timed out")).kind == "transient"  # connected: worth the long policy


def test_retry_after_headers() -> None:
    assert retry_after_seconds({"retry-after": "7"}) == 7.0
    assert retry_after_seconds({"Retry-After-Ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, now=1445412480.0) == 10.0
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"retry-after": "soon"}) is None, "an unusable hint is no hint, not a failure"
    assert classify_status(429, "slow down", {"retry-after": "3"}).retry_after_s == 3.0
