"""Which models a run may switch to (``harness/model_switch.py``), over the providers the real
provider setup builds from an environment: a provider with no credentials is refused with the
variables to set; inside gh-aw (``GITHUB_AW=true``) a switch stays within what AWF's api-proxy
routes (its placeholder credentials, the models its ``/reflect`` lists); outside gh-aw any
provider with a credential will do."""

from __future__ import annotations

from pathlib import Path

import pytest

from aw_action.agent.session import ModelUnavailableError
from aw_action.ai.catalog import UnknownModelError, resolve_model
from aw_action.config.resolve import switch_model
from aw_action.extensions import provider_setup
from aw_action.extensions.api import ExtensionAPI
from aw_action.harness.model_switch import ModelSwitch
from tests.ai.test_awf_reflect import reflect_body
from tests.extensions.test_provider_setup import make_api, providers
from tests.servers.wire import Reply, WireServer

ANTHROPIC_PLACEHOLDER = "sk-ant-placeholder-key-for-credential-isolation"


def switch_for(api: ExtensionAPI, env: dict[str, str]) -> ModelSwitch:
    provider_setup.setup(api)
    return ModelSwitch(api.model, api.services.registry, env, api.services.awf_routes)


def refusal(switch: ModelSwitch, name: str) -> str:
    with pytest.raises(ModelUnavailableError) as caught:
        switch(resolve_model(name))
    return str(caught.value)


def test_a_provider_without_credentials_is_refused_naming_its_variables(tmp_path: Path) -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-real-0123456789", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
    api = make_api(tmp_path, "sonnet", env)
    switch = switch_for(api, env)
    assert switch(resolve_model("haiku")) is providers(api)["anthropic"]
    message = refusal(switch, "openai/gpt-5-mini")
    assert message.startswith("no credentials for model openai/gpt-5-mini: set OPENAI_API_KEY")
    assert "providers registered: anthropic" in message


def test_outside_gh_aw_any_provider_with_a_credential_will_do(tmp_path: Path) -> None:
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-real-0123456789",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "OPENAI_API_KEY": "sk-proj-real-0123456789",
    }
    api = make_api(tmp_path, "sonnet", env)
    switch = switch_for(api, env)
    assert switch(resolve_model("openai/gpt-5-mini")) is providers(api)["openai"]
    assert switch(resolve_model("anthropic/claude-opus-4-6")) is providers(api)["anthropic"]


def test_inside_gh_aw_a_switch_stays_with_the_providers_awf_routes(tmp_path: Path) -> None:
    """AWF's proxy holds the anthropic key (the placeholder is in the environment); a real OpenAI
    key in the step's environment is no route the firewall lets through."""
    env = {
        "GITHUB_AW": "true",
        "ANTHROPIC_AUTH_TOKEN": ANTHROPIC_PLACEHOLDER,
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",
        "OPENAI_API_KEY": "sk-proj-real-0123456789",
    }
    api = make_api(tmp_path, "sonnet", env)
    switch = switch_for(api, env)
    assert api.services.awf_routes == {"anthropic": ()}
    assert switch(resolve_model("haiku")) is providers(api)["anthropic"]
    message = refusal(switch, "openai/gpt-5-mini")
    assert "inside gh-aw a run may switch only to a provider AWF's api-proxy routes (routed: anthropic)" in message
    assert switch(api.model) is providers(api)["anthropic"], "the run's own model is not judged again"


def test_inside_gh_aw_a_switch_stays_with_the_models_reflect_lists(tmp_path: Path) -> None:
    with WireServer() as proxy:
        proxy.default = Reply.json_body(reflect_body(proxy.url, ["claude-haiku-4-5", "claude-sonnet-4-6"]))
        env = {
            "GITHUB_AW": "true",
            "AWF_REFLECT_ENABLED": "1",
            "ANTHROPIC_AUTH_TOKEN": ANTHROPIC_PLACEHOLDER,
            "ANTHROPIC_BASE_URL": proxy.url,
        }
        api = make_api(tmp_path, "sonnet", env)
        switch = switch_for(api, env)
    assert api.services.awf_routes == {"anthropic": ("claude-haiku-4-5", "claude-sonnet-4-6")}
    assert switch(resolve_model("haiku")) is providers(api)["anthropic"]
    message = refusal(switch, "anthropic/claude-opus-4-6")
    assert "not among the models AWF's api-proxy lists for anthropic: claude-haiku-4-5, claude-sonnet-4-6" in message


def test_a_name_is_resolved_as_the_runs_own_model_is() -> None:
    """``ctx.set_model("gpt-5-mini")`` inside gh-aw on the Copilot API means Copilot's gpt-5-mini,
    as ``engine.model: gpt-5-mini`` would; a name the catalog does not know lists close ones."""
    assert switch_model("gpt-5-mini", {"GH_AW_LLM_PROVIDER": "github"}).ref == "copilot/gpt-5-mini"
    assert switch_model("gpt-5-mini", {}).ref == "openai/gpt-5-mini"
    assert switch_model("haiku", {}).ref == "anthropic/claude-haiku-4-5"
    with pytest.raises(UnknownModelError, match="haiku"):
        switch_model("haikuu", {})
