"""OTel export over OTLP/HTTP to a local receiver: spans, parent links, attributes, auth header."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sinks.otlp_receiver import Receiver, serve
from tests.sinks.support import TOOL_SCRIPT, gfm, jsonl, scripted_run

GITHUB_ENV = {"GITHUB_REPOSITORY": "octo/repo", "GITHUB_RUN_ID": "4242", "GITHUB_WORKFLOW": "nightly report"}
TOKEN = "otlp-token-5f2c9e1d"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    yield from serve()


@pytest.fixture
def denying_receiver() -> Iterator[Receiver]:
    yield from serve(status=401)


def _otel_config(endpoint: str) -> dict[str, object]:
    return {"observability": {"otlp": {"endpoint": endpoint, "headers": {"Authorization": f"Bearer {TOKEN}"}}}}


def test_spans_names_parents_and_attributes(tmp_path: Path, receiver: Receiver) -> None:
    prompt = "Write the PROMPT-SECRET-TEXT report."
    run = scripted_run(tmp_path, TOOL_SCRIPT, _otel_config(receiver.url), prompt=prompt, **GITHUB_ENV)
    assert run.returncode == 0, run.stderr
    assert not run.warnings
    assert {r["path"] for r in receiver.requests} == {"/v1/traces"}
    assert all(r["headers"]["authorization"] == f"Bearer {TOKEN}" for r in receiver.requests)
    assert all(r["headers"]["content-type"] == "application/x-protobuf" for r in receiver.requests)

    (session,) = receiver.named("invoke_agent")
    chats, tools = receiver.named("chat "), receiver.named("execute_tool ")
    assert [s.name for s in chats] == ["chat scripted"] * 3
    assert sorted(s.name for s in tools) == ["execute_tool bash", "execute_tool bash"]
    assert len(receiver.spans) == 1 + 3 + 2
    assert session.parent_span_id == b""
    for child in chats + tools:
        assert child.parent_span_id == session.span_id and child.trace_id == session.trace_id

    rows = {r["request_id"]: r for r in jsonl(run.output_dir / "token-usage.jsonl")}
    for span in chats:
        a = span.attributes
        row = rows[a["gen_ai.response.id"]]
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.request.model"] == "scripted"
        assert a["gen_ai.provider.name"] == "faux"
        assert (
            a["gen_ai.usage.input_tokens"] == row["input_tokens"] + row["cache_read_tokens"] + row["cache_write_tokens"]
        )
        assert a["gen_ai.usage.output_tokens"] == row["output_tokens"] + row["reasoning_tokens"]
        assert a["gen_ai.usage.cache_read.input_tokens"] == row["cache_read_tokens"]
        assert a["gen_ai.usage.cache_creation.input_tokens"] == row["cache_write_tokens"]
        assert a["aw.cost_usd"] == row["cost_usd"] and a["aw.effective_tokens"] == row["effective_tokens"]
        assert span.kind == 3  # SPAN_KIND_CLIENT
    failing = [s for s in tools if s.attributes.get("error.type")]
    assert len(failing) == 1 and failing[0].status_code == 2  # STATUS_CODE_ERROR
    assert all(s.attributes["gen_ai.operation.name"] == "execute_tool" for s in tools)
    assert session.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert session.attributes["gen_ai.usage.input_tokens"] == sum(
        s.attributes["gen_ai.usage.input_tokens"] for s in chats
    )
    assert session.attributes["aw.stop_reason"] == "completed"
    resource = session.resource
    assert resource["github.repository"] == resource["gh-aw.repository"] == "octo/repo"
    assert resource["github.run_id"] == "4242" and resource["github.workflow"] == "nightly report"
    assert resource["service.name"] == "aw-harness"
    every_value = repr([(s.name, s.attributes, s.resource) for s in receiver.spans])
    assert "PROMPT-SECRET-TEXT" not in every_value and "All done." not in every_value
    assert "echo one" not in every_value


def test_standard_otel_environment_variables_configure_the_exporter(tmp_path: Path, receiver: Receiver) -> None:
    run = scripted_run(
        tmp_path,
        TOOL_SCRIPT,
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url + "/",
        OTEL_EXPORTER_OTLP_HEADERS=f"Authorization=Bearer%20{TOKEN},x-tenant=acme",
    )
    assert run.returncode == 0, run.stderr
    assert receiver.requests and receiver.requests[0]["path"] == "/v1/traces"
    assert receiver.requests[0]["headers"]["authorization"] == f"Bearer {TOKEN}"
    assert receiver.requests[0]["headers"]["x-tenant"] == "acme"
    assert len(receiver.named("invoke_agent")) == 1


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_endpoint_down_is_a_degraded_warning_with_an_unchanged_exit_code(tmp_path: Path) -> None:
    endpoint = f"http://127.0.0.1:{_closed_port()}"
    run = scripted_run(tmp_path, TOOL_SCRIPT, _otel_config(endpoint), AW_OTLP_TIMEOUT_S="1")
    assert run.returncode == 0, run.stderr
    assert run.result["conclusion"] == "success"
    warnings = [e for e in run.events_named("warning") if e.get("sink") == "otel"]
    assert warnings and warnings[0]["message"].startswith(f"OTLP export to {endpoint}/v1/traces failed")
    end = run.events_named("session_end")[0]
    assert end["degraded"] == ["otel"]
    html = gfm((tmp_path / "summary.md").read_text())
    assert "Degraded mode" in html and "check OTLP endpoint connectivity" in html
    assert TOKEN not in run.stderr and TOKEN not in (tmp_path / "summary.md").read_text()


def test_rejected_export_names_the_status(tmp_path: Path, denying_receiver: Receiver) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT, _otel_config(denying_receiver.url), AW_OTLP_TIMEOUT_S="2")
    assert run.returncode == 0, run.stderr
    assert denying_receiver.requests
    warnings = [e["message"] for e in run.events_named("warning") if e.get("sink") == "otel"]
    assert warnings and "401" in warnings[0]
