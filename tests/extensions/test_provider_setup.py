"""The provider-setup extension: one provider per credential in the environment."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TypeGuard

import pytest

from aw_action.ai.catalog import resolve_model
from aw_action.ai.faux import FauxProvider
from aw_action.ai.sdk_provider import SdkProvider
from aw_action.exits import InvocationError, SdkLoadError
from aw_action.extensions import provider_setup
from aw_action.extensions.api import ExtensionAPI, HostServices, Registry
from aw_action.run.config import RunConfig
from aw_action.run.redact import Redactor
from aw_action.run.state import RunState
from aw_action.sinks.jsonl import JsonlSink
from tests.ai.conftest import collect, request
from tests.servers import openai as oai
from tests.servers.wire import WireServer


def make_api(tmp_path: Path, model: str, env: dict[str, str], harness: dict[str, str] | None = None) -> ExtensionAPI:
    redactor = Redactor()
    services = HostServices(
        config=RunConfig.model_validate({"engine": {"model": model}, "harness": harness or {}}),
        model=resolve_model(model),
        state=RunState.for_model(model),
        env=env,
        output_dir=tmp_path,
        workspace=tmp_path,
        registry=Registry(),
        post=lambda _e: None,
        redactor=redactor,
        jsonl=JsonlSink(redactor, io.StringIO()),
        config_dir=tmp_path,
    )
    return ExtensionAPI("provider-setup", True, services)


def over(provider: object, sdk: str) -> TypeGuard[SdkProvider]:
    """``provider`` is an SDK provider whose client is ``sdk``'s."""
    return isinstance(provider, SdkProvider) and provider.transport.sdk == sdk


def providers(api: ExtensionAPI) -> dict[str, object]:
    return {name: entry.value for name, entry in api.services.registry.providers.items()}


def test_each_present_credential_registers_its_provider(tmp_path: Path) -> None:
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-aaaaaaaa",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/anthropic",
        "OPENAI_API_KEY": "sk-oa-bbbbbbbb",
        "GITHUB_TOKEN": "ghp_cccccccc",
    }
    api = make_api(tmp_path, "sonnet", env)
    provider_setup.setup(api)
    found = providers(api)
    assert set(found) == {"anthropic", "openai", "github"}
    anthropic, openai, github = found["anthropic"], found["openai"], found["github"]
    assert over(anthropic, "anthropic") and anthropic.base_url == "http://127.0.0.1:9/anthropic"
    assert over(openai, "openai") and openai.base_url is None  # the SDK's own default
    assert over(github, "openai") and github.base_url == "https://models.github.ai/inference"
    assert api.services.redactor.text("key sk-ant-aaaaaaaa") == "key ***"


def test_only_present_credentials_register(tmp_path: Path) -> None:
    api = make_api(tmp_path, "gpt-4o", {"OPENAI_API_KEY": "sk-oa-bbbbbbbb", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    provider_setup.setup(api)
    found = providers(api)
    assert list(found) == ["openai"]
    provider = found["openai"]
    assert over(provider, "openai") and provider.base_url == "http://127.0.0.1:9/v1"


def test_github_models_endpoint_and_token_precedence(tmp_path: Path) -> None:
    env = {
        "GITHUB_TOKEN": "ghp_general0",
        "COPILOT_GITHUB_TOKEN": "ghp_copilot0",
        "GITHUB_MODELS_BASE_URL": "http://127.0.0.1:9/gh",
    }
    api = make_api(tmp_path, "github/openai/gpt-4.1", env)
    provider_setup.setup(api)
    github = providers(api)["github"]
    assert over(github, "openai")
    assert github.base_url == "http://127.0.0.1:9/gh" and github.scrub("ghp_copilot0") == "***"


def test_no_credential_fails_naming_the_variables(tmp_path: Path) -> None:
    with pytest.raises(InvocationError) as info:
        provider_setup.setup(make_api(tmp_path, "claude-sonnet-4.6", {}))
    text = str(info.value)
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GITHUB_TOKEN", "COPILOT_GITHUB_TOKEN"):
        assert var in text
    assert info.value.exit_code == 2


def test_faux_model_needs_no_credential(tmp_path: Path) -> None:
    (tmp_path / "script.json").write_text('[{"text": "done"}]')
    api = make_api(tmp_path, "faux/scripted", {}, {"faux-script": "script.json"})
    provider_setup.setup(api)
    assert isinstance(providers(api)["faux"], FauxProvider)


def test_faux_model_without_a_script_refuses_to_run(tmp_path: Path) -> None:
    """It used to play the bundled demo, which writes a report into the workspace."""
    with pytest.raises(InvocationError) as info:
        provider_setup.setup(make_api(tmp_path, "faux/scripted", {}))
    assert str(info.value) == (
        "model faux/scripted plays a script of answers, and none is set: set harness.faux-script in config.json "
        "(a path relative to it) or AW_FAUX_SCRIPT (examples/demo/config.json names one)"
    )
    assert info.value.exit_code == 2 and info.value.stop_reason == "invocation_error"


@pytest.mark.parametrize(
    ("harness", "env", "content", "message"),
    [
        ({"faux-script": "gone.json"}, {}, None, "harness.faux-script: {tmp}/gone.json: not found"),
        ({}, {"AW_FAUX_SCRIPT": "{tmp}/gone.json"}, None, "AW_FAUX_SCRIPT: {tmp}/gone.json: not found"),
        ({"faux-script": "bad.json"}, {}, "{not json", "harness.faux-script: {tmp}/bad.json: not a faux script: "),
        ({"faux-script": "bad.json"}, {}, '{"turns": 3}', "harness.faux-script: {tmp}/bad.json: not a faux script: "),
    ],
)
def test_an_unplayable_faux_script_is_an_invocation_error_naming_its_source(
    tmp_path: Path, harness: dict[str, str], env: dict[str, str], content: str | None, message: str
) -> None:
    if content is not None:
        (tmp_path / "bad.json").write_text(content)
    env = {k: v.format(tmp=tmp_path) for k, v in env.items()}
    with pytest.raises(InvocationError) as info:
        provider_setup.setup(make_api(tmp_path, "faux/scripted", env, harness))
    assert str(info.value).startswith(message.format(tmp=tmp_path)) and info.value.exit_code == 2


MILLISECONDS = "expected a number of milliseconds, at least 0, at most a day (86400000)"
SECONDS = "expected a positive number of seconds, at most a day (86400)"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        (
            "AW_RETRY_MAX_ATTEMPTS",
            "abc",
            "AW_RETRY_MAX_ATTEMPTS: expected a whole number of attempts, 1 to 100, got 'abc'",
        ),
        (
            "AW_RETRY_MAX_ATTEMPTS",
            "0",
            "AW_RETRY_MAX_ATTEMPTS: expected a whole number of attempts, 1 to 100, got '0'",
        ),
        (
            "AW_RETRY_MAX_ATTEMPTS",
            "2.5",
            "AW_RETRY_MAX_ATTEMPTS: expected a whole number of attempts, 1 to 100, got '2.5'",
        ),
        (
            "AW_RETRY_BASE_DELAY_MS",
            "-5",
            f"AW_RETRY_BASE_DELAY_MS: {MILLISECONDS}, got '-5'",
        ),
        (
            "AW_RETRY_MAX_DELAY_MS",
            "nan",
            f"AW_RETRY_MAX_DELAY_MS: {MILLISECONDS}, got 'nan'",
        ),
        ("AW_RETRY_JITTER_MS", "1s", f"AW_RETRY_JITTER_MS: {MILLISECONDS}, got '1s'"),
        ("AW_PROVIDER_TIMEOUT_S", "soon", f"AW_PROVIDER_TIMEOUT_S: {SECONDS}, got 'soon'"),
        ("AW_PROVIDER_TIMEOUT_S", "0", f"AW_PROVIDER_TIMEOUT_S: {SECONDS}, got '0'"),
        ("AW_PROVIDER_TIMEOUT_S", "inf", f"AW_PROVIDER_TIMEOUT_S: {SECONDS}, got 'inf'"),
    ],
)
def test_a_malformed_numeric_setting_is_an_invocation_error_naming_the_variable(
    tmp_path: Path, name: str, value: str, message: str
) -> None:
    """Whatever the model: a setting that cannot be read must not silently become the default."""
    (tmp_path / "script.json").write_text('[{"text": "done"}]')
    for model, env in (("sonnet", {"ANTHROPIC_API_KEY": "sk-ant-aaaaaaaa"}), ("faux/scripted", {})):
        api = make_api(tmp_path, model, {**env, name: value}, {"faux-script": "script.json"})
        with pytest.raises(InvocationError) as info:
            provider_setup.setup(api)
        assert str(info.value) == message and info.value.exit_code == 2


def test_well_formed_numeric_settings_tune_the_provider(tmp_path: Path) -> None:
    env = {
        "ANTHROPIC_API_KEY": "sk-ant-aaaaaaaa",
        "AW_RETRY_MAX_ATTEMPTS": " 2 ",
        "AW_RETRY_BASE_DELAY_MS": "0",
        "AW_RETRY_JITTER_MS": "",
        "AW_PROVIDER_TIMEOUT_S": "12.5",
    }
    api = make_api(tmp_path, "sonnet", env)
    provider_setup.setup(api)
    anthropic = providers(api)["anthropic"]
    assert over(anthropic, "anthropic") and anthropic.timeout_s == 12.5
    assert (anthropic.retry.max_attempts, anthropic.retry.base_delay_s, anthropic.retry.jitter_s) == (2, 0.0, 1.0)


def test_missing_sdk_for_the_runs_provider_is_a_load_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)  # `import anthropic` now raises ImportError
    with pytest.raises(SdkLoadError) as info:
        provider_setup.setup(make_api(tmp_path, "sonnet", {"ANTHROPIC_API_KEY": "sk-ant-aaaaaaaa"}))
    assert info.value.module == "anthropic" and info.value.exit_code == 2


def test_other_providers_load_their_sdk_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    api = make_api(tmp_path, "sonnet", {"ANTHROPIC_API_KEY": "sk-ant-aaaaaaaa", "OPENAI_API_KEY": "sk-oa-bbbbbbbb"})
    provider_setup.setup(api)  # the run uses anthropic: a broken openai SDK does not matter yet
    assert set(providers(api)) == {"anthropic", "openai"}


async def test_github_models_provider_from_setup_reaches_its_endpoint(tmp_path: Path) -> None:
    with WireServer() as server:
        server.script(oai.chat_stream_reply(text="Hi from GitHub Models.", model="openai/gpt-4.1"))
        env = {"GITHUB_TOKEN": "ghp_secret_token_1", "GITHUB_MODELS_BASE_URL": server.url}
        api = make_api(tmp_path, "github/openai/gpt-4.1", env)
        provider_setup.setup(api)
        github = providers(api)["github"]
        assert over(github, "openai")
        _, msg = await collect(github, request("github/openai/gpt-4.1", max_tokens=50))
    [req] = server.requests
    assert req.path == "/chat/completions" and req.json["model"] == "openai/gpt-4.1"
    assert req.json["max_tokens"] == 50 and "max_completion_tokens" not in req.json
    assert req.headers["authorization"] == "Bearer ghp_secret_token_1"
    assert msg.text == "Hi from GitHub Models." and msg.provider == "github"
    assert msg.cost_usd is not None
