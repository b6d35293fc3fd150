"""OTel inside gh-aw: the session span parented on TRACEPARENT, spans fanned out to every entry of
GH_AW_OTLP_ENDPOINTS with its own headers, which never reach a record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from aw_action.sinks.otel import OtlpTarget, gh_aw_targets, parent_context, resolve_targets
from tests.sinks.otlp_receiver import Receiver, serve
from tests.sinks.support import TOOL_SCRIPT, scripted_run

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT_ID = "b7ad6b7169203331"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
TENANT_TOKEN = "tenant-token-3e1f0a9c77"


@pytest.fixture
def first() -> Iterator[Receiver]:
    yield from serve()


@pytest.fixture
def second() -> Iterator[Receiver]:
    yield from serve()


def test_the_session_span_joins_the_workflows_trace(tmp_path: Path, first: Receiver) -> None:
    run = scripted_run(
        tmp_path, TOOL_SCRIPT, OTEL_EXPORTER_OTLP_ENDPOINT=first.url, TRACEPARENT=TRACEPARENT, GITHUB_AW="true",
        GH_AW_PHASE="agent",
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    (session,) = first.named("invoke_agent")
    assert session.trace_id.hex() == TRACE_ID and session.parent_span_id.hex() == PARENT_ID
    assert session.attributes["gh-aw.phase"] == "agent"
    children = [s for s in first.spans if s is not session]
    assert len(children) == 5
    assert all(s.trace_id.hex() == TRACE_ID and s.parent_span_id == session.span_id for s in children)


@pytest.mark.parametrize("bad", ["", "garbage", f"00-{'0' * 32}-{PARENT_ID}-01", f"00-{TRACE_ID}-{'0' * 16}-01"])
def test_an_absent_or_invalid_traceparent_leaves_a_root_span(tmp_path: Path, first: Receiver, bad: str) -> None:
    assert parent_context(bad) is None
    run = scripted_run(tmp_path, [{"text": "Done."}], OTEL_EXPORTER_OTLP_ENDPOINT=first.url, TRACEPARENT=bad)
    assert run.returncode == 0, run.stderr[-3000:]
    (session,) = first.named("invoke_agent")
    assert session.parent_span_id == b"" and session.trace_id.hex() != TRACE_ID


def test_gh_aw_otlp_endpoints_fan_out_with_their_own_headers(tmp_path: Path, first: Receiver, second: Receiver) -> None:
    endpoints = [{"url": first.url, "headers": f"Authorization=Bearer%20{TENANT_TOKEN}"}, {"url": second.url + "/"}]
    run = scripted_run(
        tmp_path, TOOL_SCRIPT, GITHUB_AW="true", GH_AW_OTLP_ENDPOINTS=json.dumps(endpoints),
        OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9/never-used", TRACEPARENT=TRACEPARENT,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert not [e for e in run.events_named("warning") if e.get("sink") == "otel"]
    for receiver in (first, second):
        assert {r["path"] for r in receiver.requests} == {"/v1/traces"}
        assert len(receiver.spans) == 6 and receiver.named("invoke_agent")[0].trace_id.hex() == TRACE_ID
    assert all(r["headers"]["authorization"] == f"Bearer {TENANT_TOKEN}" for r in first.requests)
    assert all("authorization" not in r["headers"] for r in second.requests)
    written = run.stderr + run.stdout + "".join(p.read_text() for p in run.output_dir.rglob("*") if p.is_file())
    assert TENANT_TOKEN not in written


def test_a_malformed_gh_aw_otlp_endpoints_is_reported_and_the_otel_variables_used(
    tmp_path: Path, first: Receiver
) -> None:
    run = scripted_run(
        tmp_path, [{"text": "Done."}], GITHUB_AW="true", GH_AW_OTLP_ENDPOINTS="[{\"uri\": 1}]",
        OTEL_EXPORTER_OTLP_ENDPOINT=first.url,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    [warning] = [e["message"] for e in run.events_named("warning") if "GH_AW_OTLP_ENDPOINTS" in e["message"]]
    assert warning.startswith("GH_AW_OTLP_ENDPOINTS[0]: expected {url: string, headers?: string}")
    assert len(first.named("invoke_agent")) == 1


def test_target_resolution_order() -> None:
    gh = json.dumps([{"url": "https://a.example/", "headers": "x-k=v"}, {"url": "https://b.example/v1/traces"}])
    env = {"GH_AW_OTLP_ENDPOINTS": gh, "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.example"}
    assert resolve_targets(None, {}, env) == (
        [OtlpTarget("https://a.example/v1/traces", {"x-k": "v"}), OtlpTarget("https://b.example/v1/traces", {})],
        None,
    )
    configured = resolve_targets("https://cfg.example", {}, env)
    assert configured == ([OtlpTarget("https://cfg.example/v1/traces", {})], None), "the config's endpoint wins"
    empty = {"GH_AW_OTLP_ENDPOINTS": "[]", "OTEL_EXPORTER_OTLP_ENDPOINT": ""}
    assert resolve_targets(None, {}, empty) == ([], None), "gh-aw's way of switching export off"
    with pytest.raises(ValueError, match="GH_AW_OTLP_ENDPOINTS: not JSON"):
        gh_aw_targets("{")
