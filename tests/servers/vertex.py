"""Google Vertex AI behind workload identity federation, as one local server answers it.

The four parties of a keyless run, each at its own path of one ``WireServer``:

- the Actions ID-token endpoint (``ACTIONS_ID_TOKEN_REQUEST_URL``): ``GET /id-token?...&audience=``
  with ``Authorization: Bearer <ACTIONS_ID_TOKEN_REQUEST_TOKEN>`` answers ``{"count", "value"}``;
- STS (the credentials file's ``token_url``): ``POST /sts/v1/token``, an RFC 8693 token exchange
  of that ID token for a federated access token;
- IAM Credentials (``service_account_impersonation_url``): ``POST /iam/...:generateAccessToken``
  with the federated token answers the service account's ``accessToken``;
- Vertex (``ANTHROPIC_VERTEX_BASE_URL``): ``POST /v1/projects/<p>/locations/<r>/publishers/
  anthropic/models/<model>:streamRawPredict`` (``rawPredict`` unstreamed) with that access token
  answers the next scripted Messages reply.

``external_account`` builds the credentials file as google-github-actions/auth writes it.
``refuse_exchange`` makes STS refuse the ID token, as it does for a pool that does not trust the
repository.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.servers.wire import ReceivedRequest, Reply, WireServer

REQUEST_TOKEN = "actions-id-token-REQUEST-token-0123456789"
ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.github-oidc-ID-TOKEN.sig0123456789"
FEDERATED_TOKEN = "ya29.federated-STS-token-0123456789"
ACCESS_TOKEN = "ya29.service-account-ACCESS-token-0123456789"
SERVICE_ACCOUNT = "agent@test-project.iam.gserviceaccount.com"
PROJECT = "test-project"
REGION = "us-east5"
AUDIENCE = "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/gh/providers/gh"
_PREDICT = re.compile(r"^/v1/projects/([^/]+)/locations/([^/]+)/publishers/anthropic/models/([^/:]+):(\w+)$")


def external_account(
    token_url: str, id_token_url: str, request_token: str, impersonation_url: str | None = None
) -> dict[str, Any]:
    """The credentials file google-github-actions/auth writes for workload identity federation."""
    info: dict[str, Any] = {
        "type": "external_account",
        "audience": AUDIENCE,
        "subject_token_type": "urn:ietf:params:oauth:token-type:jwt",
        "token_url": token_url,
        "credential_source": {
            "url": f"{id_token_url}&audience=https%3A%2F%2Fiam.googleapis.com%2Fprojects%2F123",
            "headers": {"Authorization": f"Bearer {request_token}"},
            "format": {"type": "json", "subject_token_field_name": "value"},
        },
    }
    if impersonation_url:
        info["service_account_impersonation_url"] = impersonation_url
    return info


def _unauthenticated(message: str) -> Reply:
    return Reply.json_body({"error": {"code": 401, "message": message, "status": "UNAUTHENTICATED"}}, 401)


@dataclass
class VertexServer:
    """The ID-token endpoint, STS, IAM Credentials and Vertex on one local server."""

    replies: deque[Reply] = field(default_factory=deque)
    refuse_exchange: bool = False
    server: WireServer = field(init=False)

    def __post_init__(self) -> None:
        self.server = WireServer(default=self._answer)

    def credentials_file(self, *, impersonate: bool = True) -> dict[str, Any]:
        iam = f"{self.url}/iam/v1/projects/-/serviceAccounts/{SERVICE_ACCOUNT}:generateAccessToken"
        id_token_url = f"{self.url}/id-token?api-version=2.0"
        return external_account(f"{self.url}/sts/v1/token", id_token_url, REQUEST_TOKEN, iam if impersonate else None)

    def _answer(self, request: ReceivedRequest) -> Reply:
        path = urlsplit(request.path).path
        auth = request.headers.get("authorization", "")
        if path == "/id-token":
            if auth != f"Bearer {REQUEST_TOKEN}" or "audience" not in parse_qs(urlsplit(request.path).query):
                return Reply.json_body({"message": "Unauthorized"}, 401)
            return Reply.json_body({"count": len(ID_TOKEN), "value": ID_TOKEN})
        if path == "/sts/v1/token":
            form = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
            if self.refuse_exchange or form.get("subject_token") != ID_TOKEN:
                return Reply.json_body(
                    {"error": "invalid_grant", "error_description": "The audience in ID Token does not match"}, 400
                )
            return Reply.json_body(
                {
                    "access_token": FEDERATED_TOKEN,
                    "issued_token_type": "urn:ietf:params:oauth:token-type:access_token",
                    "token_type": "Bearer",
                    "expires_in": 3600,
                }
            )
        if path.startswith("/iam/") and path.endswith(":generateAccessToken"):
            if auth != f"Bearer {FEDERATED_TOKEN}":
                return _unauthenticated("federated token expected")
            return Reply.json_body({"accessToken": ACCESS_TOKEN, "expireTime": "2099-01-01T00:00:00Z"})
        match = _PREDICT.match(path)
        if match is None:
            return Reply.json_body({"error": {"code": 404, "message": f"no route {path}"}}, 404)
        if auth not in (f"Bearer {ACCESS_TOKEN}", f"Bearer {FEDERATED_TOKEN}"):
            return _unauthenticated("Request had invalid authentication credentials.")
        return self.replies.popleft() if self.replies else Reply.json_body({"error": {"message": "no reply"}}, 500)

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def predict_requests(self) -> list[ReceivedRequest]:
        return [r for r in self.server.requests if _PREDICT.match(urlsplit(r.path).path)]

    def paths(self) -> list[str]:
        return [urlsplit(r.path).path for r in self.server.requests]

    def __enter__(self) -> VertexServer:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
