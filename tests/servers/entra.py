"""Azure OpenAI's keyless sign-in as local servers answer it: the Actions ID-token endpoint (plain
HTTP, as ``ACTIONS_ID_TOKEN_REQUEST_URL`` names it) and Entra ID's token endpoint (HTTPS: the
azure-identity client accepts no other authority), ``POST /<tenant>/oauth2/v2.0/token``, a
``client_credentials`` grant whose ``client_assertion`` must be the job's ID token for the audience
``api://AzureADTokenExchange``. ``refuse`` makes Entra answer as it does for an identity with no
federated credential for the repository (AADSTS700213)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from tests.servers.tls import LocalCA, make_ca
from tests.servers.wire import ReceivedRequest, Reply, WireServer

TENANT = "11111111-2222-3333-4444-555555555555"
CLIENT_ID = "99999999-8888-7777-6666-555555555555"
REQUEST_TOKEN = "actions-id-token-REQUEST-token-azure-0123456789"
ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.github-oidc-for-AZURE.sig0123456789"
ENTRA_TOKEN = "eyJ0eXAiOiJKV1Qi.entra-ACCESS-token.sig0123456789"
AUDIENCE = "api://AzureADTokenExchange"
SCOPE = "https://cognitiveservices.azure.com/.default"


@dataclass
class EntraServers:
    folder: Path
    refuse: bool = False
    ca: LocalCA = field(init=False)
    actions: WireServer = field(init=False)
    entra: WireServer = field(init=False)

    def __post_init__(self) -> None:
        self.ca = make_ca(self.folder)
        self.actions = WireServer(default=self._id_token)
        self.entra = WireServer(default=self._token, tls=self.ca.server_context())

    def _id_token(self, request: ReceivedRequest) -> Reply:
        query = parse_qs(urlsplit(request.path).query)
        if request.headers.get("authorization") != f"Bearer {REQUEST_TOKEN}" or query.get("audience") != [AUDIENCE]:
            return Reply.json_body({"message": "Unauthorized"}, 401)
        return Reply.json_body({"count": len(ID_TOKEN), "value": ID_TOKEN})

    def _token(self, request: ReceivedRequest) -> Reply:
        form = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        expected = {
            "client_id": CLIENT_ID,
            "client_assertion": ID_TOKEN,
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "grant_type": "client_credentials",
            "scope": SCOPE,
        }
        if self.refuse or urlsplit(request.path).path != f"/{TENANT}/oauth2/v2.0/token":
            return Reply.json_body(
                {"error": "invalid_client", "error_description": "AADSTS700213: No matching federated identity record"},
                400,
            )
        if any(form.get(k) != v for k, v in expected.items()):
            return Reply.json_body({"error": "invalid_request", "error_description": f"unexpected form {form}"}, 400)
        return Reply.json_body({"token_type": "Bearer", "expires_in": 3599, "access_token": ENTRA_TOKEN})

    def env(self) -> dict[str, str]:
        """The variables of a keyless Azure run (``REQUESTS_CA_BUNDLE``: azure-identity trusts the
        test CA through requests)."""
        return {
            "AZURE_CLIENT_ID": CLIENT_ID,
            "AZURE_TENANT_ID": TENANT,
            "AZURE_AUTHORITY_HOST": self.entra.url,
            "ACTIONS_ID_TOKEN_REQUEST_URL": f"{self.actions.url}/id-token?api-version=2.0",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": REQUEST_TOKEN,
            "REQUESTS_CA_BUNDLE": str(self.ca.cert),
        }

    def token_requests(self) -> list[ReceivedRequest]:
        return list(self.entra.requests)

    def __enter__(self) -> EntraServers:
        self.actions.start()
        self.entra.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.actions.stop()
        self.entra.stop()
