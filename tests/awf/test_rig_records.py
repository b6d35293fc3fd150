"""What gh-aw collects from the agent step, through the rig: agent-session.jsonl validated line by
line against gh-aw's canonical event rules, spans parented on the step's TRACEPARENT and exported
to OTEL_EXPORTER_OTLP_*, the phase labelling the run, nothing of AWF's or the conclusion job's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from aw_action.sinks.agent_session import validate_file
from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep, StepRun
from tests.servers import anthropic as ant
from tests.servers.wire import WireServer
from tests.sinks.otlp_receiver import Receiver, serve

TRACE_ID, PARENT = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"  # the rig's TRACEPARENT
OTLP_TOKEN = "otlp-tenant-token-77f1c2"
SCHEMA = Path(__file__).parents[1] / "audit" / "data" / "gh-aw" / "unified-session.schema.json"


@dataclass
class Recorded:
    run: StepRun
    spans: Receiver

    @property
    def events(self) -> list[dict[str, Any]]:
        path = self.run.step.records / "agent-session.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    tmp = tmp_path_factory.mktemp("records")
    receivers = serve()
    receiver = next(receivers)
    with WireServer() as upstream, ForwardProxy(deny=True) as squid:
        upstream.script(
            ant.stream_reply(text="Checking.", tool_calls=[("bash", {"command": "echo inspected"})]),
            ant.stream_reply(text="No threat found."),
        )
        route = ProviderRoute("anthropic", upstream, "sk-ant-api03-REAL-held-by-the-proxy-19ab")
        with AwfProxy({"anthropic": route}) as proxy:
            step = AgentStep(tmp, proxy, "anthropic/claude-sonnet-4-6", squid.url)
            step.extra_env = {
                "GH_AW_PHASE": "detection",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url,
                "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer%20{OTLP_TOKEN}",
                "OTEL_SERVICE_NAME": "gh-aw.triage",
            }
            yield Recorded(step.run(), receiver)
    receivers.close()


def test_the_run_succeeds(recorded: Recorded) -> None:
    assert recorded.run.returncode == 0, recorded.run.stderr[-3000:]


def test_agent_session_jsonl_follows_gh_aws_canonical_event_rules_line_by_line(recorded: Recorded) -> None:
    path = recorded.run.step.records / "agent-session.jsonl"
    raw = path.read_bytes()
    assert raw.endswith(b"\n") and b"\n\n" not in raw
    assert validate_file(path) == []
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator({**schema["items"], "definitions": schema["definitions"]})
    for index, record in enumerate(recorded.events):
        assert "." in record["type"] and isinstance(record["data"], dict) and record["timestamp"].endswith("Z")
        provenance = {"component": "agent", "phase": "detection", "path": "agent-session.jsonl", "index": index}
        assert [e.message for e in validator.iter_errors({**record, "provenance": provenance})] == [], record
    assert recorded.events[0]["type"] == "session.start", "no header line: session.format is aw_session.jsonl's"


def test_the_phase_labels_the_detection_run(recorded: Recorded) -> None:
    assert recorded.events[-1]["type"] == "harness.run" and recorded.events[-1]["data"]["phase"] == "detection"
    assert recorded.run.events_named("session_start")[0]["phase"] == "detection"
    summary = (recorded.run.step.gh_aw / "agent-step-summary.md").read_text()
    assert "gh-aw phase `detection`" in summary.splitlines()[2], "on the first screen, with the figures"


def test_spans_are_parented_on_the_steps_traceparent(recorded: Recorded) -> None:
    (session,) = recorded.spans.named("invoke_agent")
    assert (session.trace_id.hex(), session.parent_span_id.hex()) == (TRACE_ID, PARENT)
    children = [s for s in recorded.spans.spans if s is not session]
    assert sorted(s.name for s in children) == ["chat claude-sonnet-4-6"] * 2 + ["execute_tool bash"]
    assert all(s.trace_id == session.trace_id and s.parent_span_id == session.span_id for s in children)
    assert session.attributes["gh-aw.phase"] == "detection"
    assert all(r["headers"]["authorization"] == f"Bearer {OTLP_TOKEN}" for r in recorded.spans.requests)


def test_the_otlp_token_appears_in_nothing_the_harness_writes(recorded: Recorded) -> None:
    assert OTLP_TOKEN not in recorded.run.everything_written()
