"""Per-SDK transports: how each SDK's async client is built for one endpoint (``registry.TRANSPORTS``).

The SDK module is passed in, imported by the caller when the first request goes out. Every client
is built the same way: exactly one credential argument (so the SDK reads none from the process
environment), the endpoint (None: the SDK's own default), the catalog's headers, the SDK's own
retries off (``max_retries=0``: ``ai/retry.py`` retries), the read timeout, and httpx event hooks
(``ai/sdk_provider.py`` reports each response's status and headers from them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aw_action.ai.credentials import Credential

CONNECT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Connection:
    """What a client needs to reach one endpoint."""

    credential: Credential
    base_url: str | None
    headers: dict[str, str]
    timeout_s: float
    event_hooks: dict[str, list[Callable[..., Any]]] = field(default_factory=dict)


def anthropic_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncAnthropic``: the key as ``api_key``, or (a bearer credential, AWF's form) as
    ``auth_token``, sent as ``Authorization: Bearer``."""
    value = conn.credential.value
    credential = {"auth_token": value} if conn.credential.bearer else {"api_key": value}
    return sdk.AsyncAnthropic(
        **credential,
        base_url=conn.base_url,
        default_headers=conn.headers or None,
        max_retries=0,
        timeout=sdk.Timeout(conn.timeout_s, connect=min(CONNECT_TIMEOUT_S, conn.timeout_s)),
        http_client=sdk.DefaultAsyncHttpxClient(event_hooks=conn.event_hooks),
    )


def openai_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncOpenAI``: OpenAI itself, GitHub Models, the Copilot API, any compatible endpoint."""
    return sdk.AsyncOpenAI(
        api_key=conn.credential.value,
        base_url=conn.base_url,
        default_headers=conn.headers or None,
        max_retries=0,
        timeout=sdk.Timeout(conn.timeout_s, connect=min(CONNECT_TIMEOUT_S, conn.timeout_s)),
        http_client=sdk.DefaultAsyncHttpxClient(event_hooks=conn.event_hooks),
    )
