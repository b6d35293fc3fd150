"""The provider registry: every API row builds its wire, every transport row its client, a provider
serves only the APIs its SDK speaks, and an SDK is imported only when a provider needs it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aw_action.ai.catalog import provider_specs, resolve_model
from aw_action.ai.credentials import Credential
from aw_action.ai.registry import APIS, TRANSPORTS, load, wire_for
from aw_action.ai.sdk_provider import SdkProvider
from aw_action.ai.transports import Connection
from tests.ai.conftest import KEY, collect, request
from tests.servers.vertex import external_account


@pytest.mark.parametrize("api", sorted(api for api, row in APIS.items() if row.wire))
def test_every_api_row_builds_its_wire_for_a_provider_of_its_sdk(api: str) -> None:
    spec = next(s for s in provider_specs().values() if s.transport and TRANSPORTS[s.transport].sdk == APIS[api].sdk)
    wire = wire_for(api, spec)
    assert (wire.api, wire.path.startswith("/"), bool(wire.terminal)) == (api, True, True)
    assert all(callable(getattr(wire, name)) for name in ("body", "decode", "feed", "whole", "end_of_stream"))


SETTINGS = {"region": "us-east5", "project": "test-project", "api_version": "2024-10-21"}


@pytest.mark.parametrize("name", sorted(TRANSPORTS))
def test_every_transport_builds_an_async_client_of_its_sdk(name: str, tmp_path: Path) -> None:
    row = TRANSPORTS[name]
    sdk = __import__(row.sdk)
    adc = tmp_path / "adc.json"
    adc.write_text(json.dumps(external_account("http://127.0.0.1:9/sts", "http://127.0.0.1:9/id?x=1", "req-tok")))
    credential = {
        "bedrock": Credential("AKIATEST", "AWS_ACCESS_KEY_ID", parts={"AWS_SECRET_ACCESS_KEY": KEY}),
        "vertex": Credential(str(adc), "GOOGLE_APPLICATION_CREDENTIALS", file=True),
    }.get(name, Credential(KEY, "X_API_KEY"))
    connection = Connection(credential, "http://127.0.0.1:9", {"x-test": "1"}, 12.0, settings=SETTINGS)
    client = load(row.client)(sdk, connection)
    assert type(client).__module__.split(".")[0] == row.sdk and client.max_retries == 0
    assert str(client.base_url).startswith("http://127.0.0.1:9")


async def test_a_model_whose_api_the_providers_sdk_does_not_speak_ends_in_an_error() -> None:
    provider = SdkProvider(provider_specs()["openai"], Credential(KEY, "OPENAI_API_KEY"), base_url="http://127.0.0.1:9")
    req = request("openai/gpt-4o")
    req.model = resolve_model("anthropic/claude-sonnet-4-6")
    _, msg = await collect(provider, req)
    assert msg.stop_reason == "error" and "cannot serve API 'anthropic-messages'" in (msg.error_message or "")


@pytest.mark.parametrize(
    ("model", "imported"),
    [("faux/scripted", []), ("sonnet", ["anthropic"]), ("gpt-4o", ["openai"])],
)
def test_only_the_runs_provider_imports_its_sdk(model: str, imported: list[str]) -> None:
    code = f"""
import json, sys
from aw_action.ai.catalog import resolve_model
from aw_action.ai.providers import build_providers
env = {{"ANTHROPIC_API_KEY": "sk-ant-aaaaaaaa", "OPENAI_API_KEY": "sk-oa-bbbbbbbb"}}
built = build_providers(resolve_model({model!r}), env, faux_turns=[])
print(json.dumps([sorted(built.providers), [m for m in ("anthropic", "openai") if m in sys.modules]]))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    providers, loaded = json.loads(proc.stdout)
    assert {"anthropic", "openai"} <= set(providers)
    assert loaded == imported
