"""Credentials the AWF way: what AWF's api-proxy leaves in the agent's environment must work.

Values and variable names are AWF's (gh-aw-firewall @f550957,
``src/services/credentials/{anthropic,openai,copilot}-credential-env.ts``,
``src/constants/placeholders.ts``, ``containers/api-proxy/request-headers.js``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.ai.catalog import provider_hint, provider_specs, qualify_model, resolve_model
from aw_action.ai.credentials import (
    find_credential,
    github_access_variables,
    is_awf_placeholder,
    provider_variables,
    withheld_variables,
)
from aw_action.ai.endpoints import base_url, interaction_id, request_headers
from aw_action.ai.errors import classify_status
from aw_action.ai.sdk_provider import SdkProvider
from aw_action.environment.runner import RunnerFacts
from aw_action.exits import InvocationError
from aw_action.extensions import provider_setup
from aw_action.run.redact import secrets_from_env
from tests.ai.conftest import FAST, collect, request
from tests.extensions.test_provider_setup import make_api, providers
from tests.servers import anthropic as ant
from tests.servers import openai as oai
from tests.servers.wire import WireServer

ANTHROPIC_PLACEHOLDER = "sk-ant-placeholder-key-for-credential-isolation"
OPENAI_PLACEHOLDER = "sk-placeholder-for-api-proxy"
COPILOT_PLACEHOLDER = "ghu_" + "a" * 36


async def test_anthropic_auth_token_is_sent_as_bearer_and_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A key in the process environment must not ride along: the SDK reads none when given one.
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-ambient-process-key-0000")
    with WireServer() as server:
        server.script(ant.stream_reply(text="hi"))
        env = {"ANTHROPIC_AUTH_TOKEN": ANTHROPIC_PLACEHOLDER, "ANTHROPIC_BASE_URL": server.url}
        api = make_api(tmp_path, "sonnet", env)
        provider_setup.setup(api)
        provider = providers(api)["anthropic"]
        _, msg = await collect(provider, request("sonnet"))  # type: ignore[arg-type]
    assert msg.stop_reason == "stop", msg.error_message
    client = provider._client  # type: ignore[attr-defined]
    assert (client.auth_token, client.api_key) == (ANTHROPIC_PLACEHOLDER, None), "the SDK's auth_token, as AWF means"
    [req] = server.requests
    assert req.headers["authorization"] == f"Bearer {ANTHROPIC_PLACEHOLDER}"
    assert "x-api-key" not in req.headers
    assert "ambient" not in str(req.headers)


async def test_anthropic_api_key_wins_over_auth_token(tmp_path: Path) -> None:
    key = "sk-ant-real-key-1234567890"
    with WireServer() as server:
        server.script(ant.stream_reply(text="hi"))
        env = {"ANTHROPIC_API_KEY": key, "ANTHROPIC_AUTH_TOKEN": "sk-ant-other-token", "ANTHROPIC_BASE_URL": server.url}
        api = make_api(tmp_path, "sonnet", env)
        provider_setup.setup(api)
        await collect(providers(api)["anthropic"], request("sonnet"))  # type: ignore[arg-type]
    [req] = server.requests
    assert key in (req.headers.get("x-api-key"), req.headers.get("authorization", "").removeprefix("Bearer "))
    assert "sk-ant-other-token" not in str(req.headers)


async def test_codex_api_key_alone_serves_openai_at_a_base_url_without_v1(tmp_path: Path) -> None:
    with WireServer() as server:
        server.script(oai.chat_stream_reply(text="hi", model="gpt-4o"))
        # AWF's form: http://172.30.0.30:10000, no /v1; its proxy adds /v1 toward api.openai.com.
        env = {"CODEX_API_KEY": OPENAI_PLACEHOLDER, "OPENAI_BASE_URL": server.url}
        api = make_api(tmp_path, "gpt-4o", env)
        provider_setup.setup(api)
        _, msg = await collect(providers(api)["openai"], request("gpt-4o"))  # type: ignore[arg-type]
    assert msg.stop_reason == "stop", msg.error_message
    [req] = server.requests
    assert req.path == "/chat/completions"
    assert req.headers["authorization"] == f"Bearer {OPENAI_PLACEHOLDER}"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://api.openai.com", "https://api.openai.com/v1"),
        ("https://api.openai.com/", "https://api.openai.com/v1"),
        ("https://api.openai.com/v1", "https://api.openai.com/v1"),
        ("http://172.30.0.30:10000", "http://172.30.0.30:10000"),
        ("https://proxy.example/openai/", "https://proxy.example/openai"),
    ],
)
def test_openai_base_url_gets_v1_only_on_the_public_host(url: str, expected: str) -> None:
    assert base_url(provider_specs()["openai"], {"OPENAI_BASE_URL": url}) == expected


def test_an_unset_base_url_keeps_the_sdk_default_and_a_discovered_one_wins() -> None:
    spec = provider_specs()["anthropic"]
    assert base_url(spec, {}) is None
    assert base_url(spec, {"ANTHROPIC_BASE_URL": "http://a:1"}, "http://api-proxy:10001") == "http://api-proxy:10001"


async def test_copilot_chat_model_reaches_copilot_api_url_with_its_headers(tmp_path: Path) -> None:
    with WireServer() as server:
        server.script(oai.chat_stream_reply(text="hi", model="claude-sonnet-4.5"))
        env = {
            "COPILOT_GITHUB_TOKEN": COPILOT_PLACEHOLDER,
            "COPILOT_API_URL": server.url,
            "GITHUB_RUN_ID": "987654",
            "GITHUB_RUN_ATTEMPT": "2",
        }
        api = make_api(tmp_path, "copilot/claude-sonnet-4-5", env)
        provider_setup.setup(api)
        copilot = providers(api)["copilot"]
        assert isinstance(copilot, SdkProvider) and copilot.transport.sdk == "openai"
        _, msg = await collect(copilot, request("copilot/claude-sonnet-4-5", max_tokens=40))
    assert msg.stop_reason == "stop", msg.error_message
    [req] = server.requests
    assert req.path == "/chat/completions"
    assert req.json["model"] == "claude-sonnet-4.5", "Copilot rejects a copilot/ prefix and hyphenated Claude ids"
    assert req.json["max_tokens"] == 40
    assert req.headers["authorization"] == f"Bearer {COPILOT_PLACEHOLDER}"
    assert req.headers["copilot-integration-id"] == "agentic-workflows"
    assert req.headers["x-initiator"] == "agent"
    assert req.headers["x-interaction-id"] == "987654-2"
    assert msg.provider == "copilot"


async def test_copilot_gpt5_family_uses_the_responses_api(tmp_path: Path) -> None:
    with WireServer() as server:
        server.script(oai.responses_stream_reply(text="hi", model="gpt-5"))
        env = {"COPILOT_GITHUB_TOKEN": COPILOT_PLACEHOLDER, "COPILOT_API_URL": server.url}
        api = make_api(tmp_path, "copilot/gpt-5", env)
        provider_setup.setup(api)
        _, msg = await collect(providers(api)["copilot"], request("copilot/gpt-5"))  # type: ignore[arg-type]
    assert msg.stop_reason == "stop", msg.error_message
    [req] = server.requests
    assert req.path == "/responses" and req.json["model"] == "gpt-5"
    assert req.headers["copilot-integration-id"] == "agentic-workflows"


@pytest.mark.parametrize(
    ("model", "api"),
    [
        ("copilot/gpt-5.4-mini", "openai-responses"),  # not in the catalog: AWF's gpt-5|o3 rule
        ("copilot/o3", "openai-responses"),
        ("copilot/o30", "openai-completions"),
        ("copilot/gpt-4.1", "openai-completions"),
        ("copilot/claude-opus-4.5", "openai-completions"),
    ],
)
def test_copilot_api_per_model_is_catalog_data(model: str, api: str) -> None:
    assert resolve_model(model).api == api


def test_copilot_models_are_priced_by_their_vendor() -> None:
    assert resolve_model("copilot/gpt-5").price_provider == "openai"
    assert resolve_model("copilot/claude-sonnet-4.5").price_provider == "anthropic"


def test_the_copilot_provider_without_a_token_names_its_variable(tmp_path: Path) -> None:
    with pytest.raises(InvocationError, match="COPILOT_GITHUB_TOKEN"):
        provider_setup.setup(make_api(tmp_path, "copilot/gpt-4.1", {}))


def test_interaction_id_is_the_run_and_attempt_or_one_id_per_process() -> None:
    assert interaction_id(RunnerFacts.read({"GITHUB_RUN_ID": "42"})) == "42-1"
    assert interaction_id(RunnerFacts()) == interaction_id(RunnerFacts()) != "42-1"
    headers = request_headers(
        provider_specs()["copilot"], RunnerFacts.read({"GITHUB_RUN_ID": "7", "GITHUB_RUN_ATTEMPT": "3"})
    )
    assert headers == {
        "Copilot-Integration-Id": "agentic-workflows",
        "X-Initiator": "agent",
        "X-Interaction-Id": "7-3",
    }
    assert request_headers(provider_specs()["anthropic"], RunnerFacts.read({"GITHUB_RUN_ID": "7"})) == {}


@pytest.mark.parametrize(
    ("llm_provider", "model", "qualified"),
    [
        ("github", "gpt-5", "copilot/gpt-5"),
        ("github", "claude-sonnet-4-5", "copilot/claude-sonnet-4.5"),
        ("github", "anthropic/claude-sonnet-4-6", "anthropic/claude-sonnet-4-6"),  # the model names one
        ("anthropic", "sonnet", "anthropic/claude-sonnet-4-6"),
        ("anthropic", "claude-future-9", "anthropic/claude-future-9"),
        ("openai", "gpt-5", "openai/gpt-5"),
        ("codex", "gpt-5-codex", "openai/gpt-5-codex"),
        ("", "sonnet", "sonnet"),
        ("gemini", "sonnet", "sonnet"),  # a provider the harness does not serve: no hint
    ],
)
def test_gh_aw_llm_provider_picks_the_provider_when_the_model_names_none(
    llm_provider: str, model: str, qualified: str
) -> None:
    assert qualify_model(model, provider_hint({"GH_AW_LLM_PROVIDER": llm_provider})) == qualified


def test_credential_variables_come_from_the_credential_table() -> None:
    names = withheld_variables()
    expected = {"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY", "CODEX_API_KEY", "COPILOT_GITHUB_TOKEN"}
    assert expected | {"GEMINI_API_KEY"} <= names
    assert github_access_variables() == {"GITHUB_TOKEN", "GH_TOKEN"}, "the agent's gh and git may keep these"
    assert not names & github_access_variables()
    for spec in provider_specs().values():
        assert set(provider_variables(spec.name)) <= names | github_access_variables()


def test_awf_placeholders_are_not_secrets_but_real_keys_are() -> None:
    env = {
        "ANTHROPIC_AUTH_TOKEN": ANTHROPIC_PLACEHOLDER,
        "OPENAI_API_KEY": OPENAI_PLACEHOLDER,
        "CODEX_API_KEY": OPENAI_PLACEHOLDER,
        "COPILOT_GITHUB_TOKEN": COPILOT_PLACEHOLDER,
        "ANTHROPIC_API_KEY": "sk-ant-real-0123456789",
        "GITHUB_TOKEN": "ghs_realtoken0123456789",
    }
    assert sorted(secrets_from_env(env)) == ["ghs_realtoken0123456789", "sk-ant-real-0123456789"]
    assert is_awf_placeholder(f" {COPILOT_PLACEHOLDER} ")
    assert not is_awf_placeholder(COPILOT_PLACEHOLDER[:-1] + "b"), "only the exact values"


def test_provider_setup_redacts_real_keys_not_placeholders(tmp_path: Path) -> None:
    env = {"ANTHROPIC_AUTH_TOKEN": ANTHROPIC_PLACEHOLDER, "OPENAI_API_KEY": "sk-oa-real-0123456789"}
    api = make_api(tmp_path, "sonnet", env)
    provider_setup.setup(api)
    redact = api.services.redactor.text
    assert redact(ANTHROPIC_PLACEHOLDER) == ANTHROPIC_PLACEHOLDER
    assert redact("key sk-oa-real-0123456789") == "key ***"
    cred = find_credential("anthropic", env)
    assert cred is not None and cred.bearer and cred.placeholder and cred.var == "ANTHROPIC_AUTH_TOKEN"


def test_proxy_budget_refusal_is_its_own_error_kind() -> None:
    body = (
        "ai_credits_limit_exceeded: Error code: 403 - {'error': {'type': 'ai_credits_limit_exceeded', "
        "'message': 'Maximum AI credits exceeded (1000.4 / 1000).', 'total_ai_credits': 1000.4, "
        "'max_ai_credits': 1000, 'hard_cap': False}}"
    )
    assert classify_status(403, body).kind == "budget"
    assert classify_status(429, "effective_tokens_limit_exceeded: Maximum effective tokens exceeded").kind == "budget"
    assert classify_status(403, "permission_denied: forbidden").kind == "auth"  # an ordinary 403: the key


async def test_proxy_403_ai_credits_is_not_retried(tmp_path: Path) -> None:
    refusal = {
        "error": {
            "type": "ai_credits_limit_exceeded",
            "message": "Maximum AI credits exceeded (1000.000000 / 1000).",
            "total_ai_credits": 1000.0,
            "max_ai_credits": 1000,
            "hard_cap": False,
        }
    }
    with WireServer() as server:
        from tests.servers.wire import Reply

        server.script(Reply.json_body(refusal, status=403), ant.stream_reply(text="never reached"))
        env = {"ANTHROPIC_AUTH_TOKEN": ANTHROPIC_PLACEHOLDER, "ANTHROPIC_BASE_URL": server.url}
        api = make_api(tmp_path, "sonnet", env)
        provider_setup.setup(api)
        provider = providers(api)["anthropic"]
        provider.retry = FAST  # type: ignore[attr-defined]
        _, msg = await collect(provider, request("sonnet"))  # type: ignore[arg-type]
    assert len(server.requests) == 1
    assert msg.stop_reason == "error" and msg.error_kind == "budget"
    assert "Maximum AI credits exceeded" in (msg.error_message or "")
