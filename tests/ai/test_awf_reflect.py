"""AWF ``/reflect`` discovery: endpoints and models from the proxy, bounded, failure falls back.

The answer's shape is AWF's (gh-aw-firewall @f550957 ``containers/api-proxy/management.js``
``reflectEndpoints``): ``base_url`` ``http://api-proxy:<port>``, ``models`` a sorted id list or null.
"""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest

from aw_action.ai import awf_reflect
from aw_action.extensions import provider_setup
from aw_action.extensions.api import ExtensionAPI
from tests.ai.conftest import collect, request
from tests.extensions.test_provider_setup import make_api, providers
from tests.github.silent import SilentServer
from tests.servers import anthropic as ant
from tests.servers.wire import Reply, WireServer

TOKEN = "sk-ant-placeholder-key-for-credential-isolation"


def reflect_body(anthropic_url: str | None, models: list[str] | None = None) -> dict[str, Any]:
    """A /reflect answer: anthropic configured at ``anthropic_url``, the other ports not."""
    return {
        "endpoints": [
            {
                "provider": "openai",
                "port": 10000,
                "base_url": "http://api-proxy:10000",
                "configured": False,
                "models": None,
                "model_metadata": None,
                "models_url": None,
            },
            {
                "provider": "anthropic",
                "port": 10001,
                "base_url": anthropic_url,
                "configured": anthropic_url is not None,
                "models": models,
                "model_metadata": None,
                "models_url": "http://api-proxy:10001/v1/models",
            },
        ],
        "models_fetch_complete": True,
        "model_aliases": None,
        "ai_credits": {"total": 0, "by_model": {}},
    }


def stderr_of(api: ExtensionAPI) -> str:
    stream = api.services.jsonl.stream
    assert isinstance(stream, io.StringIO)
    return stream.getvalue()


async def test_reflect_names_the_endpoint_the_requests_go_to(tmp_path: Path) -> None:
    with WireServer() as model_server, WireServer() as proxy:
        proxy.default = Reply.json_body(reflect_body(model_server.url, ["claude-haiku-4-5", "claude-sonnet-4-6"]))
        model_server.script(ant.stream_reply(text="hi"))
        env = {"AWF_REFLECT_ENABLED": "1", "ANTHROPIC_AUTH_TOKEN": TOKEN, "ANTHROPIC_BASE_URL": proxy.url}
        api = make_api(tmp_path, "sonnet", env)
        provider_setup.setup(api)
        provider = providers(api)["anthropic"]
        _, msg = await collect(provider, request("sonnet"))  # type: ignore[arg-type]
        assert provider.base_url == model_server.url  # type: ignore[attr-defined]
    assert [(r.method, r.path) for r in proxy.requests] == [("GET", "/reflect")]
    assert msg.stop_reason == "stop" and len(model_server.requests) == 1
    assert "AWF /reflect at" in stderr_of(api) and "anthropic (2 models)" in stderr_of(api)
    assert api.state.journal.warnings == []


def test_reflect_is_asked_only_when_enabled(tmp_path: Path) -> None:
    with WireServer() as proxy:
        proxy.default = Reply.json_body(reflect_body("http://127.0.0.1:9"))
        api = make_api(tmp_path, "sonnet", {"ANTHROPIC_AUTH_TOKEN": TOKEN, "ANTHROPIC_BASE_URL": proxy.url})
        provider_setup.setup(api)
        assert providers(api)["anthropic"].base_url == proxy.url  # type: ignore[attr-defined]
    assert proxy.requests == []


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply.json_body({"error": "boom"}, status=500), "HTTP 500"),
        (Reply(200, {"content-type": "application/json"}, [b"{not json"], chunked=False), "not JSON"),
        (Reply.json_body([1, 2]), "expected a JSON object"),
        (Reply.json_body({"endpoints": [{"configured": True}]}), "endpoints.0.provider"),
        (Reply(200, {}, [b"x" * 65536] * 20), "larger than"),
    ],
)
def test_a_failed_reflect_warns_and_the_environment_is_used(tmp_path: Path, reply: Reply, reason: str) -> None:
    with WireServer() as proxy:
        proxy.default = reply
        env = {"AWF_REFLECT_ENABLED": "1", "ANTHROPIC_AUTH_TOKEN": TOKEN, "ANTHROPIC_BASE_URL": proxy.url}
        api = make_api(tmp_path, "sonnet", env)
        provider_setup.setup(api)
        assert providers(api)["anthropic"].base_url == proxy.url  # type: ignore[attr-defined]
    [warning] = api.state.journal.warnings
    assert warning.startswith("AWF /reflect failed, using the environment's endpoints") and reason in warning


def test_a_silent_proxy_costs_at_most_the_reflect_timeout(tmp_path: Path) -> None:
    with SilentServer() as silent:
        env = {
            "AWF_REFLECT_ENABLED": "1",
            "AW_REFLECT_TIMEOUT_S": "0.5",
            "ANTHROPIC_AUTH_TOKEN": TOKEN,
            "ANTHROPIC_BASE_URL": silent,
        }
        api = make_api(tmp_path, "sonnet", env)
        started = time.monotonic()
        provider_setup.setup(api)
        elapsed = time.monotonic() - started
    [warning] = api.state.journal.warnings
    assert "AWF /reflect failed" in warning
    assert elapsed < 15, "bounded by the reflect timeout (0.5 s), with a wide margin for a loaded machine"


def test_a_model_the_proxy_does_not_list_is_a_warning(tmp_path: Path) -> None:
    with WireServer() as proxy:
        proxy.default = Reply.json_body(reflect_body(proxy.url, ["claude-haiku-4-5"]))
        env = {"AWF_REFLECT_ENABLED": "1", "ANTHROPIC_AUTH_TOKEN": TOKEN, "ANTHROPIC_BASE_URL": proxy.url}
        api = make_api(tmp_path, "sonnet", env)
        provider_setup.setup(api)
    [warning] = api.state.journal.warnings
    assert "'claude-sonnet-4-6' is not among the models" in warning and "claude-haiku-4-5" in warning


def test_candidate_urls_try_the_environments_ports_then_gh_aws_address() -> None:
    urls = awf_reflect.candidate_urls({}, ["http://172.30.0.30:10001/", "http://172.30.0.30:10001/x", "nonsense"])
    assert urls == ["http://172.30.0.30:10001/reflect", awf_reflect.GH_AW_REFLECT_URL]
    assert awf_reflect.candidate_urls({"AW_REFLECT_URL": "http://r:1/reflect"}, ["http://a:1"]) == [
        "http://r:1/reflect"
    ]


def test_the_first_answering_url_wins(tmp_path: Path) -> None:
    with WireServer() as down, WireServer() as up:
        down.default = Reply.json_body({}, status=503)
        up.default = Reply.json_body(reflect_body("http://api-proxy:10001"))
        answering = f"{up.url}/reflect"
        reflection = awf_reflect.fetch([f"{down.url}/reflect", answering], timeout=10)
    assert reflection.source == answering
    endpoint = reflection.endpoint_for(["Anthropic"])
    assert endpoint is not None and endpoint.base_url == "http://api-proxy:10001" and endpoint.models is None
    assert reflection.endpoint_for(["openai"]) is None, "not configured"


@pytest.mark.parametrize(("value", "expected"), [("", 3.0), ("nan", 3.0), ("-1", 3.0), ("inf", 3.0), ("0.2", 0.2)])
def test_reflect_timeout_setting_is_finite_and_positive(value: str, expected: float) -> None:
    assert awf_reflect.timeout_s({"AW_REFLECT_TIMEOUT_S": value}) == expected
