"""Per-SDK transports: how each SDK's async client is built for one endpoint (``registry.TRANSPORTS``).

The SDK module is passed in, imported by the caller when the first request goes out. Every client
is built the same way: its credential passed explicitly (so the SDK reads none from the process
environment), the endpoint (None: the SDK's own default), the catalog's headers, the SDK's own
retries off (``max_retries=0``: ``ai/retry.py`` retries), the read timeout, and httpx event hooks
(``ai/sdk_provider.py`` reports each response's status and headers from them), and the TLS
context made while the SDK imported (``ai/tls.py``).

The clouds are the same SDKs' own clients: Amazon Bedrock and Google Vertex AI through the
anthropic SDK's (SigV4 signing or a Bedrock API key; a Google access token minted from the
Application Default Credentials file, ``ai/google_credentials.py``), Azure OpenAI through the
openai SDK's (an API key or an Entra ID token; a model names a deployment). Their settings (region,
project, API version) come from ``Connection.settings`` (``ai/settings.py``).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Mapping
from dataclasses import field
from typing import Any

from aw_action.ai.credentials import Credential
from aw_action.ai.registry import import_sdk
from aw_action.ai.settings import MissingSettingError
from aw_action.lazy_dataclass import dataclass

CONNECT_TIMEOUT_S = 10.0
NO_KEY = "EMPTY"
"""The key a keyless OpenAI-compatible endpoint is sent (vLLM's documentation's own value)."""


@dataclass(frozen=True)
class Connection:
    """What a client needs to reach one endpoint."""

    credential: Credential
    base_url: str | None
    headers: dict[str, str]
    timeout_s: float
    event_hooks: dict[str, list[Callable[..., Any]]] = field(default_factory=dict)
    settings: Mapping[str, str] = field(default_factory=dict)
    """The provider's settings by name (``ai/settings.py``)."""
    reveal: Callable[[str], None] = field(default=lambda _secret: None)
    """Tells the redactor a secret found while building the client (one a credentials file holds)."""
    tls: Callable[[], ssl.SSLContext | bool] = field(default=lambda: True)
    """The client's TLS context, as ``verify=`` (``ai/tls.py``: made while the SDK imported);
    True: httpx2 makes its default one."""


def _common(sdk: Any, conn: Connection) -> dict[str, Any]:
    return {
        "default_headers": conn.headers or None,
        "max_retries": 0,
        "timeout": sdk.Timeout(conn.timeout_s, connect=min(CONNECT_TIMEOUT_S, conn.timeout_s)),
        "http_client": sdk.DefaultAsyncHttpxClient(event_hooks=conn.event_hooks, verify=conn.tls()),
    }


def anthropic_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncAnthropic``: the key as ``api_key``, or (a bearer credential, AWF's form) as
    ``auth_token``, sent as ``Authorization: Bearer``."""
    value = conn.credential.value
    credential = {"auth_token": value} if conn.credential.bearer else {"api_key": value}
    return sdk.AsyncAnthropic(**credential, base_url=conn.base_url, **_common(sdk, conn))


def openai_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncOpenAI``: OpenAI itself, GitHub Models, the Copilot API, any compatible endpoint (a
    keyless one is sent ``NO_KEY``: the SDK wants a key, the server ignores it)."""
    return sdk.AsyncOpenAI(api_key=conn.credential.value or NO_KEY, base_url=conn.base_url, **_common(sdk, conn))


def bedrock_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncAnthropicBedrock``: a Bedrock API key (``AWS_BEARER_TOKEN_BEDROCK``) as ``api_key``,
    else the AWS access key, secret key and session token (what configure-aws-credentials exports
    after OIDC), which the SDK signs each request with (SigV4, service ``bedrock``)."""
    import_sdk("botocore.eventstream")  # the stream's framing; missing, that is SdkLoadError now
    cred = conn.credential
    if cred.bearer:
        auth: dict[str, Any] = {"api_key": cred.value}
    else:
        import_sdk("boto3")  # the signer's session
        auth = {
            "aws_access_key": cred.value,
            "aws_secret_key": cred.parts["AWS_SECRET_ACCESS_KEY"],
            "aws_session_token": cred.parts.get("AWS_SESSION_TOKEN"),
        }
    return sdk.AsyncAnthropicBedrock(
        **auth, aws_region=conn.settings["region"], base_url=conn.base_url, **_common(sdk, conn)
    )


def vertex_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncAnthropicVertex`` with the credentials of the Application Default Credentials file
    the credential names (a workload identity federation ``external_account`` file as
    google-github-actions/auth writes it, or a service account key); the SDK refreshes their
    access token when it expires."""
    from aw_action.ai.google_credentials import load_credentials

    credentials = load_credentials(conn.credential, conn.reveal)
    return sdk.AsyncAnthropicVertex(
        region=conn.settings["region"],
        project_id=conn.settings["project"],
        credentials=credentials,
        base_url=conn.base_url,
        **_common(sdk, conn),
    )


def azure_client(sdk: Any, conn: Connection) -> Any:
    """``AsyncAzureOpenAI`` at the resource's endpoint: the key (sent as ``api-key``), an Entra ID
    token (a bearer credential, ``Authorization: Bearer``) or Entra ID tokens minted from the job's
    OIDC token (workload identity federation, ``ai/entra.py``); a model's id is its deployment name,
    which the SDK puts in the path (``/openai/deployments/<name>/chat/completions``)."""
    if not conn.base_url:
        raise MissingSettingError("azure/…: AZURE_OPENAI_ENDPOINT is not set")
    cred = conn.credential
    credential: dict[str, Any] = {"azure_ad_token": cred.value} if cred.bearer else {"api_key": cred.value}
    if cred.oidc:
        from aw_action.ai.entra import token_provider

        credential = {"azure_ad_token_provider": token_provider(cred, conn.settings["authority"])}
    return sdk.AsyncAzureOpenAI(
        **credential,
        azure_endpoint=conn.base_url,
        api_version=conn.settings["api_version"],
        **_common(sdk, conn),
    )
