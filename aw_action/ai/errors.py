"""Provider error classification: one place decides retry, overflow or fatal.

Every failure of one HTTP attempt becomes a ``ProviderError`` carrying a ``Classified`` verdict:

- ``overflow``: the request does not fit the context window (phrases of pi-semantics §12, or a
  400/413 with no body). Never retried; compaction handles it.
- ``transient``: 429/500/502/503/504/529 and 408 (the server timed the request out), overloaded,
  rate-limit or server-error events inside a stream (``overloaded_error``, OpenAI's
  ``server_error``), connection errors, raw HTTP-library transport errors (a socket dropped mid-body surfaces as e.g.
  ``httpx.RemoteProtocolError``, which the SDKs do not wrap) and streams that ended before
  their terminal event. Retried by ``retry.py``.
- ``budget``: a spending limit enforced outside the harness refused the request: AWF's api-proxy
  answers 403 ``{"error": {"type": "ai_credits_limit_exceeded", ...}}`` once a run's AI credits
  reach ``GH_AW_MAX_AI_CREDITS`` (or the 10,000 hard cap), ``effective_tokens_limit_exceeded`` for
  the legacy effective-token budget (gh-aw-firewall ``guards/ai-credits-guard.js``,
  ``guards/common-guard-checks.js``). Never retried: every later request gets the same answer.
- ``unreachable``: the connection itself failed (refused, no such host, connect timeout):
  retried briefly on its own schedule (``retry.py``), then the run fails; nothing is gained by
  asking again.
- ``auth``: HTTP 401 or 403 (but AWF's 403 budget refusals above): the credential was refused.
  Also a cloud client that could not get a token at all (google-auth's ``RefreshError`` or
  ``OAuthError`` when the ID-token endpoint or STS refuses, unless it says the failure is
  retryable; botocore's missing or partial credentials; azure-identity's
  ``ClientAuthenticationError`` when Entra ID refuses the job's OIDC token). Never retried; the
  run ends as an invocation error (exit 2).
- ``fatal``: everything else (bad request, quota/billing even when sent as 429).

Classification works on duck-typed attributes (``status_code``, ``body``, ``response.headers``)
and class names, so this module imports no SDK. Error text is scrubbed by the caller's redactor.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from typing import Any

from aw_action.ai.types import ErrorKind
from aw_action.lazy_dataclass import dataclass

TRANSIENT_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})
AUTH_STATUS = frozenset({401, 403})
CONNECT_CLASS_NAMES = frozenset({"ConnectError", "ConnectTimeout", "ConnectionRefusedError", "gaierror"})
"""Failures to open the connection at all (httpx, the OS, name resolution), found anywhere in the
exception's chain (the SDKs wrap them in their ``APIConnectionError``)."""

BUDGET_ERROR_TYPES = ("ai_credits_limit_exceeded", "effective_tokens_limit_exceeded")
"""AWF api-proxy error types for a run budget that is spent (HTTP 403, older releases 429)."""

OVERFLOW_PHRASES = (
    "prompt is too long",
    "request_too_large",
    "exceeds the context window",
    "maximum context length",
    "context_length_exceeded",
    "model_context_window_exceeded",
    "too many tokens",
    "token limit exceeded",
    "input is too long",
)
THROTTLE_PHRASES = ("rate limit", "rate_limit", "too many requests", "throttl")
TRANSIENT_PHRASES = (
    "overloaded",
    *THROTTLE_PHRASES,
    "service unavailable",
    "server error",
    "server_error",
    "internal error",
    "api_error",
    "timed out",
    "timeout",
    "connection error",
    "connection reset",
    "connection refused",
    "please retry",
    "try your request again",
)
QUOTA_PHRASES = (
    "insufficient_quota",
    "quota exceeded",
    "exceeded your current quota",
    "billing",
    "available balance",
    "monthly usage limit",
    "out of budget",
    "credit balance is too low",
)
AUTH_CLASS_NAMES = frozenset(
    {
        "RefreshError",
        "OAuthError",
        "DefaultCredentialsError",
        "NoCredentialsError",
        "PartialCredentialsError",
        "ClientAuthenticationError",
        "IdTokenError",
    }
)
"""Exceptions of the cloud credential libraries (google-auth, botocore, azure-identity) and of the
Actions ID-token request (``ai/entra.py``) that mean no token could be had."""
TRANSPORT_CLASS_NAMES = frozenset(
    {
        "APIConnectionError",
        "APITimeoutError",
        "TransportError",
        "NetworkError",
        "ProtocolError",
        "RemoteProtocolError",
        "ReadError",
        "WriteError",
        "ConnectError",
        "TimeoutException",
        "ReadTimeout",
        "ConnectTimeout",
        "PoolTimeout",
        "IncompleteRead",
    }
)
"""Exception classes (of the SDKs, httpx/httpx2, httpcore) that mean the connection failed."""


@dataclass(frozen=True)
class Classified:
    """The verdict on one failed attempt. ``message`` is unscrubbed: redact before showing it."""

    kind: ErrorKind
    message: str
    status: int | None = None
    retry_after_s: float | None = None


class ProviderError(Exception):
    """A classified failure of one HTTP attempt; ``retry.py`` retries the ``transient`` ones."""

    def __init__(self, info: Classified) -> None:
        super().__init__(info.message)
        self.info = info


class IncompleteStreamError(Exception):
    """The body ended (or the socket closed) before the API's terminal event."""


def classify(exc: BaseException) -> Classified:
    """Classify any exception raised while sending one request or reading its response."""
    if isinstance(exc, ProviderError):
        return exc.info
    if isinstance(exc, IncompleteStreamError):
        return Classified("transient", str(exc))
    status = _int_or_none(getattr(exc, "status_code", None))
    message = _describe(exc)
    headers = _headers_of(exc)
    if any(cls.__name__ in AUTH_CLASS_NAMES for cls in type(exc).__mro__):
        return Classified("transient" if getattr(exc, "retryable", False) is True else "auth", message)
    if status is None and _is_connect_error(exc):
        root = _root_cause(exc)
        detail = f"{type(root).__name__}: {root}" if root is not exc and str(root) else ""
        return Classified("unreachable", f"{message} ({detail})" if detail and detail not in message else message)
    if status is None and _is_transport_error(exc):
        return Classified("transient", message)
    return classify_status(status, message, headers)


def classify_status(status: int | None, message: str, headers: Mapping[str, str] | None = None) -> Classified:
    """Classify an HTTP status plus error text (also used for error events inside a 200 stream)."""
    text = message.lower()
    retry_after = retry_after_seconds(headers or {})
    if any(t in text for t in BUDGET_ERROR_TYPES):
        return Classified("budget", message, status)
    if any(p in text for p in OVERFLOW_PHRASES) and not any(p in text for p in THROTTLE_PHRASES):
        return Classified("overflow", message, status)
    if status in (400, 413) and not _has_detail(message):
        return Classified("overflow", message, status)
    if any(p in text for p in QUOTA_PHRASES):
        return Classified("fatal", message, status)
    if status in AUTH_STATUS:
        return Classified("auth", message, status)
    if status in TRANSIENT_STATUS:
        return Classified("transient", message, status, retry_after)
    if (status is None or status < 400) and any(p in text for p in TRANSIENT_PHRASES):
        return Classified("transient", message, status, retry_after)
    return Classified("fatal", message, status)


def stream_error(body: object, raw: str) -> Classified:
    """An error event inside a 2xx stream (Anthropic's ``error`` event, a Chat Completions chunk
    that is an ``error`` object, as the SDKs raise them): ``type: message`` of its error object
    (``body["error"]`` or ``body`` itself), else the event's text, classified as a status error is
    (``overloaded_error``, ``server_error``: transient)."""
    err = body.get("error", body) if isinstance(body, Mapping) else None
    if isinstance(err, Mapping):
        kind = err.get("type") or err.get("code")
        message = err.get("message")
        text = str(message) if isinstance(message, str) and message else raw or "an error event in the stream"
        if isinstance(kind, str) and kind and kind not in text:
            text = f"{kind}: {text}"
    else:
        text = raw or "an error event in the stream"
    return classify_status(None, text)


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """The server's requested delay: ``retry-after-ms``, else ``retry-after`` (seconds or a date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:  # an HTTP-date; anything unparseable means no usable hint, never a failure
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, parsed.timestamp() - (now if now is not None else time.time()))


def _is_connect_error(exc: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError) or any(
            cls.__name__ in CONNECT_CLASS_NAMES for cls in type(current).__mro__
        ):
            return True
        current = current.__cause__ or current.__context__
    return False


def _root_cause(exc: BaseException) -> BaseException:
    seen = {id(exc)}
    while (nxt := exc.__cause__ or exc.__context__) is not None and id(nxt) not in seen:
        seen.add(id(nxt))
        exc = nxt
    return exc


def _is_transport_error(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError | TimeoutError):
        return True
    return any(cls.__name__ in TRANSPORT_CLASS_NAMES for cls in type(exc).__mro__)


def _describe(exc: BaseException) -> str:
    """Error text: the SDK message plus the API's error type, else the class name."""
    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        err = body.get("error", body)
        kind = err.get("type") or err.get("code") if isinstance(err, Mapping) else None
        if isinstance(kind, str) and kind not in text:
            text = f"{kind}: {text}"
    if getattr(exc, "status_code", None) is None and type(exc).__name__ not in text:
        text = f"{type(exc).__name__}: {text}"
    return text


def _headers_of(exc: BaseException) -> dict[str, str]:
    response: Any = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    try:
        return {str(k).lower(): str(v) for k, v in headers.items()} if headers is not None else {}
    except (AttributeError, TypeError):
        return {}


_BARE_STATUS = re.compile(r"^(error code: \d+)?( - )?(none|''|\"\"|bad request|payload too large)?$")


def _has_detail(message: str) -> bool:
    """False for the bare messages SDKs build when a 400/413 came with an empty body."""
    return not _BARE_STATUS.match(message.strip().lower())


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) else None
