"""Planted secrets never reach stdout, stderr, the summary, any output file or an exported span.

The secrets get every chance to leak: the model says one, a tool prints two, a tool error and a
provider error quote one, and a user extension puts them in a warning, a harness record and a
degraded notice. The OTLP receiver must still get the real Authorization header.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sinks.otlp_receiver import Receiver, serve
from tests.sinks.support import scripted_run

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-PLANTED-anthropic-0001",
    "OPENAI_API_KEY": "sk-PLANTED-openai-0002",
    "GITHUB_TOKEN": "ghp_PLANTED0003githubtoken",
    "MY_SERVICE_TOKEN": "PLANTED-custom-0006",
}
ENV_HEADER_VALUE = "PLANTED/envheader0004"  # sent URL-encoded in OTEL_EXPORTER_OTLP_HEADERS
CONFIG_HEADER_TOKEN = "PLANTED-cfg-token-0005"
ALL = [*SECRETS.values(), ENV_HEADER_VALUE, "PLANTED%2Fenvheader0004", CONFIG_HEADER_TOKEN]

LEAKY_EXTENSION = """
def setup(api):
    secret = api.env["MY_SERVICE_TOKEN"]

    def on_start(event, ctx):
        ctx.warn("the service token is " + secret)
        ctx.emit("leaky_record", token=secret, nested={"key": api.env["GITHUB_TOKEN"]})
        ctx.degrade("leaky", "lost data for " + secret, "rotate " + api.env["OPENAI_API_KEY"])

    api.on("session_start", on_start)
"""


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    yield from serve()


def test_planted_secrets_reach_no_output(tmp_path: Path, receiver: Receiver) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "leaky.py").write_text(LEAKY_EXTENSION)
    script = [
        {
            "text": f"My key is {SECRETS['GITHUB_TOKEN']}.",
            "tool_calls": [{"name": "bash", "arguments": {"command": "echo $GITHUB_TOKEN $MY_SERVICE_TOKEN"}}],
        },
        {"text": "Reading.", "tool_calls": [{"name": "read", "arguments": {"path": f"/nope/{CONFIG_HEADER_TOKEN}"}}]},
        {"error": {"message": f"upstream rejected key {SECRETS['ANTHROPIC_API_KEY']}", "kind": "fatal"}},
    ]
    config = {
        "harness": {"extensions": ["./leaky.py"]},
        "observability": {
            "otlp": {"endpoint": receiver.url, "headers": {"Authorization": f"Bearer {CONFIG_HEADER_TOKEN}"}}
        },
    }
    run = scripted_run(
        tmp_path,
        script,
        config,
        prompt=f"Use the token {SECRETS['OPENAI_API_KEY']} wisely.",
        OTEL_EXPORTER_OTLP_HEADERS="x-env-auth=PLANTED%2Fenvheader0004",
        **SECRETS,
    )
    assert run.returncode == 1, run.stderr  # the scripted provider error ends the run
    assert run.events_named("leaky_record") and run.events_named("warning"), "the extension did run"
    outputs = {"stdout": run.stdout, "stderr": run.stderr, "summary": (tmp_path / "summary.md").read_text()}
    files = [p for p in run.output_dir.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {
        "session.jsonl",
        "token-usage.jsonl",
        "aw_session.jsonl",
        "context-provenance.jsonl",
    }
    outputs.update({str(p): p.read_text(errors="replace") for p in files})
    spans = b"".join(r["body"] for r in receiver.requests)
    assert receiver.spans, "spans were exported"
    for secret in ALL:
        for where, text in outputs.items():
            assert secret not in text, f"{secret} leaked into {where}"
        assert secret.encode() not in spans, f"{secret} leaked into the exported spans"
    assert "***" in run.stderr and "***" in (run.output_dir / "session.jsonl").read_text()
    assert "***" in outputs["summary"]  # the degraded notice, masked
    assert all(r["headers"]["authorization"] == f"Bearer {CONFIG_HEADER_TOKEN}" for r in receiver.requests)
    assert all(r["headers"]["x-env-auth"] == ENV_HEADER_VALUE for r in receiver.requests)
    assert json.loads(run.stdout)["final_message"] == "", "an error ends the run: no final message"
