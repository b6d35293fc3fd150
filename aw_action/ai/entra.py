"""Entra ID tokens for Azure OpenAI by workload identity federation: the job's GitHub OIDC token is
the client assertion of an app registration (or user-assigned managed identity) that trusts the
repository, as azure/login does it, with no secret stored anywhere.

``AZURE_CLIENT_ID`` and ``AZURE_TENANT_ID`` name the identity (azure/login's ``client-id`` and
``tenant-id``); the ID token comes from the Actions endpoint (``ACTIONS_ID_TOKEN_REQUEST_URL``
with ``audience=api://AzureADTokenExchange``, azure/login's default audience, and
``Authorization: Bearer <ACTIONS_ID_TOKEN_REQUEST_TOKEN>``); azure-identity's
``ClientAssertionCredential`` exchanges it at ``<authority>/<tenant>/oauth2/v2.0/token`` (the
``authority`` setting: ``AZURE_AUTHORITY_HOST``, default the public cloud's) and keeps the access
token until it nears expiry. azure-identity is imported only when such a client is built; its own log lines are
silenced (they would reach stderr past the redactor: a failure is the provider's to report).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

import httpx

from aw_action.ai.credentials import Credential
from aw_action.ai.registry import import_sdk

AUDIENCE = "api://AzureADTokenExchange"
SCOPE = "https://cognitiveservices.azure.com/.default"
ID_TOKEN_TIMEOUT_S = 15.0


class IdTokenError(RuntimeError):
    """The Actions endpoint gave no ID token (HTTP status or body named)."""


def actions_id_token(url: str, request_token: str, audience: str = AUDIENCE) -> str:
    """The job's OIDC token for ``audience`` from the Actions ID-token endpoint."""
    response = httpx.get(
        url,
        params={"audience": audience},
        headers={"Authorization": f"Bearer {request_token}", "Accept": "application/json"},
        timeout=ID_TOKEN_TIMEOUT_S,
    )
    if response.status_code != 200:
        raise IdTokenError(f"the Actions ID-token endpoint answered HTTP {response.status_code}")
    try:
        value = response.json().get("value")
    except ValueError:
        value = None
    if not isinstance(value, str) or not value:
        raise IdTokenError("the Actions ID-token endpoint's answer has no token")
    return value


def token_provider(credential: Credential, authority: str) -> Callable[[], Awaitable[str]]:
    """An async ``azure_ad_token_provider`` for the identity ``credential`` names (its tenant in
    ``parts``), asserted with the job's OIDC token at ``authority``."""
    identity = import_sdk("azure.identity")
    logging.getLogger("azure").setLevel(logging.CRITICAL)  # its failures are reported, redacted, by the provider
    parts = credential.parts
    url, request_token = parts["ACTIONS_ID_TOKEN_REQUEST_URL"], parts["ACTIONS_ID_TOKEN_REQUEST_TOKEN"]
    assertion = identity.ClientAssertionCredential(
        parts["AZURE_TENANT_ID"], credential.value, lambda: actions_id_token(url, request_token), authority=authority
    )

    async def provide() -> str:
        token: str = (await asyncio.to_thread(assertion.get_token, SCOPE)).token
        return token

    return provide
