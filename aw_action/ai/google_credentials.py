"""Google credentials from the Application Default Credentials file ``GOOGLE_APPLICATION_CREDENTIALS``
names, read once when the Vertex client is built (google-auth is imported only then).

The file is what google-github-actions/auth writes (``src/client/workload_identity_federation.ts``):
an ``external_account`` whose ``credential_source`` is the Actions ID-token endpoint
(``url`` = ``ACTIONS_ID_TOKEN_REQUEST_URL`` with the audience, ``headers`` =
``Authorization: Bearer <ACTIONS_ID_TOKEN_REQUEST_TOKEN>``, ``format`` = json, field ``value``);
google-auth fetches that ID token, exchanges it at the file's ``token_url`` (STS) and, with
``service_account_impersonation_url``, for a service account's token. A service account key file
works too. The file is read here, not by ``google.auth.default()``, so the path comes from the
run's environment and no project lookup goes out over the network.

What the file holds that is a secret (the request token in its headers, a service account's
private key) is revealed to the redactor; a file that is missing, unreadable or of another kind
is an ``InvocationError`` naming the variable and the path.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from aw_action.ai.credentials import Credential
from aw_action.exits import InvocationError

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
MAX_FILE_BYTES = 1 << 20


def read_info(credential: Credential) -> dict[str, Any]:
    """The JSON object the credential's file holds; ``InvocationError`` naming it otherwise."""
    where = f"{credential.var}={credential.value}"
    try:
        with open(credential.value, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise InvocationError(
            f"{where}: cannot read the credentials file ({exc.strerror or exc}); run google-github-actions/auth "
            "after actions/checkout, in the same job, and keep create_credentials_file on"
        ) from None
    try:
        info = json.loads(raw) if len(raw) <= MAX_FILE_BYTES else None
    except ValueError:
        info = None
    if not isinstance(info, dict) or info.get("type") not in ("external_account", "service_account"):
        raise InvocationError(f"{where}: not a Google credentials file of type external_account or service_account")
    return info


def file_secrets(info: dict[str, Any]) -> list[str]:
    """The secrets inside a credentials file: its ``credential_source`` headers' values (and the
    token after ``Bearer``), a service account's private key."""
    source = info.get("credential_source")
    headers = source.get("headers") if isinstance(source, dict) else None
    found: list[str] = []
    for value in (headers or {}).values() if isinstance(headers, dict) else ():
        if isinstance(value, str):
            found += [value, value.split(" ", 1)[1]] if " " in value else [value]
    found += [str(info[k]) for k in ("private_key", "client_secret") if info.get(k)]
    return found


def load_credentials(credential: Credential, reveal: Callable[[str], None]) -> Any:
    """google-auth credentials (cloud-platform scope) for the file ``credential`` names."""
    info = read_info(credential)
    for secret in file_secrets(info):
        reveal(secret)
    factory: Any
    if info["type"] == "service_account":
        from google.oauth2 import service_account

        factory = service_account.Credentials.from_service_account_info
    else:
        from google.auth import identity_pool

        factory = identity_pool.Credentials.from_info
    try:
        return factory(info, scopes=[CLOUD_PLATFORM])
    except ValueError as exc:
        raise InvocationError(f"{credential.var}={credential.value}: {exc}") from None
