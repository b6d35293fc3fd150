"""The clouds through their real SDK clients against local servers that speak their wire: Bedrock's
event-stream behind SigV4, Vertex's streamRawPredict behind a workload identity token exchange,
Azure OpenAI's deployments path, and an OpenAI-compatible endpoint with and without a key."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from aw_action.ai.catalog import canonical_model_id, resolve_model
from aw_action.ai.providers import build_providers
from aw_action.ai.sdk_provider import SdkProvider
from aw_action.exits import InvocationError, MissingCredentialsError
from aw_action.run.effective_tokens import Multipliers
from tests.ai.conftest import FAST, collect, request
from tests.servers import anthropic, bedrock, entra, vertex
from tests.servers import openai as openai_wire
from tests.servers.wire import WireServer

BEDROCK_MODEL = "bedrock/us.anthropic.claude-sonnet-4-5-20250929-v1:0"
VERTEX_MODEL = "vertex/claude-sonnet-4-5@20250929"
AZURE_KEY = "azure-openai-KEY-0123456789abcdef"


def provider(model: str, env: dict[str, str], revealed: list[str] | None = None) -> SdkProvider:
    spec = resolve_model(model)
    built = build_providers(
        spec,
        {"AW_RETRY_MAX_ATTEMPTS": "2", "AW_RETRY_BASE_DELAY_MS": "1", **env},
        reveal=None if revealed is None else revealed.append,
    )
    found = built.providers[spec.provider]
    assert isinstance(found, SdkProvider)
    found.retry = FAST
    return found


def bedrock_env(url: str, **extra: str) -> dict[str, str]:
    return {
        "AWS_ACCESS_KEY_ID": bedrock.ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": bedrock.SECRET_KEY,
        "AWS_SESSION_TOKEN": bedrock.SESSION_TOKEN,
        "AWS_REGION": bedrock.REGION,
        "ANTHROPIC_BEDROCK_BASE_URL": url,
        **extra,
    }


@pytest.fixture
def bedrock_server() -> Iterator[bedrock.BedrockServer]:
    with bedrock.BedrockServer() as server:
        yield server


@pytest.fixture
def vertex_server() -> Iterator[vertex.VertexServer]:
    with vertex.VertexServer() as server:
        yield server


def vertex_env(
    server: vertex.VertexServer, tmp_path: Path, *, impersonate: bool = True, **extra: str
) -> dict[str, str]:
    adc = tmp_path / "gha-creds-0123456789abcdef.json"
    adc.write_text(json.dumps(server.credentials_file(impersonate=impersonate)))
    return {
        "GOOGLE_APPLICATION_CREDENTIALS": str(adc),
        "CLOUD_ML_REGION": vertex.REGION,
        "ANTHROPIC_VERTEX_PROJECT_ID": vertex.PROJECT,
        "ANTHROPIC_VERTEX_BASE_URL": f"{server.url}/v1",
        **extra,
    }


async def test_bedrock_streams_event_stream_frames_signed_with_sigv4(bedrock_server: bedrock.BedrockServer) -> None:
    bedrock_server.replies.append(
        bedrock.stream_reply(text="Listing.", tool_calls=[("bash", {"command": "ls"})], use=anthropic.usage(120, 30))
    )
    _, msg = await collect(provider(BEDROCK_MODEL, bedrock_env(bedrock_server.url)), request(BEDROCK_MODEL))

    assert msg.stop_reason == "toolUse" and msg.error_message is None
    assert [(c.name, c.arguments) for c in msg.tool_calls] == [("bash", {"command": "ls"})]
    assert (msg.usage.input, msg.usage.output) == (120, 30)
    assert msg.cost_usd is not None and msg.cost_usd > 0, "genai-prices' AWS Bedrock row prices it"
    [sent] = bedrock_server.model_requests
    assert sent.path == "/model/us.anthropic.claude-sonnet-4-5-20250929-v1:0/invoke-with-response-stream"
    assert bedrock.sigv4_valid(sent), "the server accepted it only because botocore's signer agrees"
    assert not bedrock.sigv4_valid(sent, secret_key="another-secret-0123456789")
    body = sent.json
    assert body["anthropic_version"] and "model" not in body and "stream" not in body
    assert body["tools"][0]["name"] == "bash"


async def test_bedrock_api_key_is_sent_as_a_bearer_token(bedrock_server: bedrock.BedrockServer) -> None:
    bedrock_server.replies.append(bedrock.stream_reply(text="ok"))
    env = {
        "AWS_BEARER_TOKEN_BEDROCK": bedrock.API_KEY,
        "AWS_REGION": "eu-west-1",
        "ANTHROPIC_BEDROCK_BASE_URL": bedrock_server.url,
    }
    _, msg = await collect(provider(BEDROCK_MODEL, env), request(BEDROCK_MODEL))
    assert msg.text == "ok"
    assert bedrock_server.model_requests[0].headers["authorization"] == f"Bearer {bedrock.API_KEY}"


async def test_bedrock_refused_signature_is_an_auth_error_with_its_fix(bedrock_server: bedrock.BedrockServer) -> None:
    env = bedrock_env(bedrock_server.url, AWS_SECRET_ACCESS_KEY="wrong-secret-key-0123456789")
    _, msg = await collect(provider(BEDROCK_MODEL, env), request(BEDROCK_MODEL))
    assert (msg.stop_reason, msg.error_kind) == ("error", "auth")
    text = msg.error_message or ""
    assert "refused the credential in AWS_ACCESS_KEY_ID" in text and "configure-aws-credentials" in text
    assert "wrong-secret-key" not in text and bedrock.SESSION_TOKEN not in text
    assert len(bedrock_server.model_requests) == 1, "a refused credential is not retried"


def test_bedrock_without_a_region_names_the_variable_and_the_action_that_sets_it() -> None:
    env = bedrock_env("http://127.0.0.1:9")
    del env["AWS_REGION"]
    with pytest.raises(InvocationError, match=r"AWS_REGION or AWS_DEFAULT_REGION is not set: .*aws-region input"):
        build_providers(resolve_model(BEDROCK_MODEL), env)


def test_bedrock_without_credentials_says_how_to_get_them_with_oidc() -> None:
    env = {"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": bedrock.ACCESS_KEY}  # no secret key: incomplete
    with pytest.raises(MissingCredentialsError) as caught:
        build_providers(resolve_model(BEDROCK_MODEL), env)
    message = str(caught.value)
    assert "AWS_BEARER_TOKEN_BEDROCK or AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY" in message
    assert "role-to-assume" in message and "id-token: write" in message


async def test_vertex_exchanges_the_actions_id_token_and_streams_raw_predict(
    vertex_server: vertex.VertexServer, tmp_path: Path
) -> None:
    vertex_server.replies.append(anthropic.stream_reply(text="Hi.", tool_calls=[("bash", {"command": "pwd"})]))
    revealed: list[str] = []
    _, msg = await collect(provider(VERTEX_MODEL, vertex_env(vertex_server, tmp_path), revealed), request(VERTEX_MODEL))

    assert msg.stop_reason == "toolUse" and msg.tool_calls[0].arguments == {"command": "pwd"}
    assert msg.cost_usd is not None and msg.cost_usd > 0, "genai-prices' Google row prices it"
    assert vertex_server.paths() == [
        "/id-token",
        "/sts/v1/token",
        f"/iam/v1/projects/-/serviceAccounts/{vertex.SERVICE_ACCOUNT}:generateAccessToken",
        f"/v1/projects/{vertex.PROJECT}/locations/{vertex.REGION}/publishers/anthropic/models/"
        "claude-sonnet-4-5@20250929:streamRawPredict",
    ]
    [predict] = vertex_server.predict_requests
    assert predict.headers["authorization"] == f"Bearer {vertex.ACCESS_TOKEN}"
    assert predict.json["anthropic_version"] and "model" not in predict.json
    assert vertex.REQUEST_TOKEN in revealed and vertex.ACCESS_TOKEN in revealed, "both reach the redactor"


async def test_vertex_direct_federation_uses_the_sts_token(vertex_server: vertex.VertexServer, tmp_path: Path) -> None:
    vertex_server.replies.append(anthropic.stream_reply(text="direct"))
    env = vertex_env(vertex_server, tmp_path, impersonate=False)
    _, msg = await collect(provider(VERTEX_MODEL, env), request(VERTEX_MODEL))
    assert msg.text == "direct"
    assert vertex_server.predict_requests[0].headers["authorization"] == f"Bearer {vertex.FEDERATED_TOKEN}"


async def test_vertex_refused_token_exchange_is_an_auth_error(
    vertex_server: vertex.VertexServer, tmp_path: Path
) -> None:
    vertex_server.refuse_exchange = True
    _, msg = await collect(provider(VERTEX_MODEL, vertex_env(vertex_server, tmp_path)), request(VERTEX_MODEL))
    assert (msg.stop_reason, msg.error_kind) == ("error", "auth")
    assert "GOOGLE_APPLICATION_CREDENTIALS" in (msg.error_message or "")
    assert "google-github-actions/auth" in (msg.error_message or "")
    assert vertex_server.predict_requests == []


@pytest.mark.parametrize(
    ("missing", "named"),
    [
        ("CLOUD_ML_REGION", "CLOUD_ML_REGION is not set"),
        ("ANTHROPIC_VERTEX_PROJECT_ID", "ANTHROPIC_VERTEX_PROJECT_ID or"),
    ],
)
def test_vertex_without_region_or_project_names_it(
    missing: str, named: str, vertex_server: vertex.VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(vertex_server, tmp_path)
    del env[missing]
    with pytest.raises(InvocationError, match=named):
        build_providers(resolve_model(VERTEX_MODEL), env)


def test_vertex_project_from_google_github_actions_auth_is_used(
    vertex_server: vertex.VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(vertex_server, tmp_path)
    del env["ANTHROPIC_VERTEX_PROJECT_ID"]
    env["GOOGLE_CLOUD_PROJECT"] = "from-auth-action"
    built = build_providers(resolve_model(VERTEX_MODEL), env)
    assert built.providers["vertex"]._client.project_id == "from-auth-action"  # type: ignore[attr-defined]


@pytest.mark.parametrize("content", ["", "{not json", '{"type": "authorized_user"}'])
def test_vertex_credentials_file_that_is_not_one_is_named(
    content: str, vertex_server: vertex.VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(vertex_server, tmp_path)
    Path(env["GOOGLE_APPLICATION_CREDENTIALS"]).write_text(content)
    with pytest.raises(InvocationError, match=r"GOOGLE_APPLICATION_CREDENTIALS=.*gha-creds.*not a Google credentials"):
        build_providers(resolve_model(VERTEX_MODEL), env)


def test_vertex_credentials_file_missing_says_when_the_auth_step_runs(
    vertex_server: vertex.VertexServer, tmp_path: Path
) -> None:
    env = vertex_env(vertex_server, tmp_path)
    Path(env["GOOGLE_APPLICATION_CREDENTIALS"]).unlink()
    with pytest.raises(InvocationError, match=r"cannot read the credentials file .*after actions/checkout"):
        build_providers(resolve_model(VERTEX_MODEL), env)


async def test_azure_sends_the_deployment_path_api_version_and_key(server: WireServer) -> None:
    server.script(
        openai_wire.chat_stream_reply(
            text="Hi.",
            tool_calls=[("bash", {"command": "ls"})],
            model="gpt-4o-2024-11-20",
            use=openai_wire.chat_usage(200, 20),
        )
    )
    env = {"AZURE_OPENAI_ENDPOINT": server.url + "/", "AZURE_OPENAI_API_KEY": AZURE_KEY}
    _, msg = await collect(provider("azure/team-gpt4o", env), request("azure/team-gpt4o"))

    assert msg.stop_reason == "toolUse" and msg.tool_calls[0].arguments == {"command": "ls"}
    assert msg.cost_usd is not None and msg.cost_usd > 0, "priced as the model the deployment reports"
    [sent] = server.requests
    assert sent.path == "/openai/deployments/team-gpt4o/chat/completions?api-version=2024-10-21"
    assert sent.headers["api-key"] == AZURE_KEY and "authorization" not in sent.headers
    assert sent.json["stream_options"] == {"include_usage": True}


async def test_azure_entra_token_and_api_version_from_the_environment(server: WireServer) -> None:
    server.script(openai_wire.chat_stream_reply(text="ok"))
    env = {
        "AZURE_OPENAI_ENDPOINT": server.url,
        "AZURE_OPENAI_AD_TOKEN": "eyJ0eXAi.entra-TOKEN.sig",
        "OPENAI_API_VERSION": "2025-04-01-preview",
    }
    await collect(provider("azure/gpt-4o", env), request("azure/gpt-4o"))
    [sent] = server.requests
    assert sent.path.endswith("?api-version=2025-04-01-preview")
    assert sent.headers["authorization"] == "Bearer eyJ0eXAi.entra-TOKEN.sig" and "api-key" not in sent.headers


async def test_azure_missing_deployment_says_what_azure_slash_names(server: WireServer) -> None:
    server.script(
        openai_wire.error_reply(404, "The API deployment for this resource does not exist.", "DeploymentNotFound")
    )
    env = {"AZURE_OPENAI_ENDPOINT": server.url, "AZURE_OPENAI_API_KEY": AZURE_KEY}
    _, msg = await collect(provider("azure/nope", env), request("azure/nope"))
    assert msg.error_kind == "fatal"
    assert "does not exist" in (msg.error_message or "") and "names a deployment" in (msg.error_message or "")


async def test_azure_keyless_exchanges_the_jobs_oidc_token_at_entra_id(
    server: WireServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    server.script(openai_wire.chat_stream_reply(text="one"), openai_wire.chat_stream_reply(text="two"))
    with entra.EntraServers(tmp_path) as sign_in:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(sign_in.ca.cert))  # azure-identity's requests reads it
        revealed: list[str] = []
        azure = provider("azure/gpt-4o", {**sign_in.env(), "AZURE_OPENAI_ENDPOINT": server.url}, revealed)
        await collect(azure, request("azure/gpt-4o"))
        await collect(azure, request("azure/gpt-4o"))
        token_requests = sign_in.token_requests()
    assert [r.headers.get("authorization") for r in server.requests] == [f"Bearer {entra.ENTRA_TOKEN}"] * 2
    assert len(token_requests) == 1, "the token is kept until it nears expiry"
    assert token_requests[0].path == f"/{entra.TENANT}/oauth2/v2.0/token"
    assert entra.ENTRA_TOKEN in revealed and azure.scrub(f"x {entra.ENTRA_TOKEN} y") == "x *** y"


async def test_azure_keyless_refused_by_entra_is_an_auth_error(
    server: WireServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with entra.EntraServers(tmp_path, refuse=True) as sign_in:
        monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(sign_in.ca.cert))
        azure = provider("azure/gpt-4o", {**sign_in.env(), "AZURE_OPENAI_ENDPOINT": server.url})
        _, msg = await collect(azure, request("azure/gpt-4o"))
    assert (msg.stop_reason, msg.error_kind) == ("error", "auth")
    assert "AADSTS700213" in (msg.error_message or "") and "AZURE_CLIENT_ID" in (msg.error_message or "")
    assert server.requests == []


def test_azure_without_endpoint_names_it() -> None:
    with pytest.raises(InvocationError, match=r"AZURE_OPENAI_ENDPOINT is not set: .*openai\.azure\.com"):
        build_providers(resolve_model("azure/gpt-4o"), {"AZURE_OPENAI_API_KEY": AZURE_KEY})


async def test_compatible_endpoint_without_a_key_is_unpriced(server: WireServer) -> None:
    server.script(openai_wire.chat_stream_reply(text="local", model="llama3.1:8b"))
    env = {"OPENAI_COMPATIBLE_BASE_URL": server.url + "/v1"}
    _, msg = await collect(provider("compatible/llama3.1:8b", env), request("compatible/llama3.1:8b"))
    assert msg.text == "local" and msg.cost_usd is None, "no price is known: budgets count tokens"
    [sent] = server.requests
    assert sent.path == "/v1/chat/completions" and sent.json["model"] == "llama3.1:8b"
    assert sent.headers["authorization"] == "Bearer EMPTY"


async def test_compatible_responses_wire_with_a_key(server: WireServer) -> None:
    server.script(openai_wire.responses_stream_reply(text="routed", model="openai/gpt-oss-120b"))
    env = {"OPENAI_COMPATIBLE_BASE_URL": server.url + "/api/v1", "OPENAI_COMPATIBLE_API_KEY": "sk-or-KEY-0123456789"}
    model = "compatible-responses/openai/gpt-oss-120b"
    _, msg = await collect(provider(model, env), request(model))
    assert msg.text == "routed"
    [sent] = server.requests
    assert sent.path == "/api/v1/responses" and sent.json["model"] == "openai/gpt-oss-120b"
    assert sent.headers["authorization"] == "Bearer sk-or-KEY-0123456789"


def test_compatible_without_a_base_url_says_how_to_name_the_endpoint() -> None:
    with pytest.raises(MissingCredentialsError, match="set OPENAI_COMPATIBLE_BASE_URL to the endpoint"):
        build_providers(resolve_model("compatible/llama3"), {})
    with pytest.raises(InvocationError, match="OPENAI_COMPATIBLE_BASE_URL is not set"):
        build_providers(resolve_model("compatible/llama3"), {"OPENAI_COMPATIBLE_API_KEY": "sk-0123456789"})


def test_a_cloud_missing_its_settings_is_no_obstacle_to_another_providers_run() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-0123456789", "AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "s3cret-key"}
    built = build_providers(resolve_model("sonnet"), env)
    assert "anthropic" in built.providers and "bedrock" not in built.providers


@pytest.mark.parametrize(
    ("cloud_id", "vendor_id"),
    [
        ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5"),
        ("anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5"),
        ("global.anthropic.claude-opus-4-6-v1:0", "claude-opus-4-6"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4-5"),
        ("claude-opus-4-6@latest", "claude-opus-4-6"),
        ("gpt-4o", "gpt-4o"),
    ],
)
def test_cloud_model_ids_read_as_the_vendors_for_limits_and_multipliers(cloud_id: str, vendor_id: str) -> None:
    assert canonical_model_id(cloud_id) == vendor_id
    assert Multipliers().lookup(cloud_id) == Multipliers().lookup(vendor_id)


def test_an_unlisted_cloud_model_gets_the_vendors_limits() -> None:
    model = resolve_model("bedrock/eu.anthropic.claude-opus-4-6-v1:0")
    assert (model.context_window, model.max_output_tokens, model.api) == (200000, 32000, "anthropic-messages")
    assert Multipliers().lookup(model.id) is not None
