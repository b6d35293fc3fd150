"""agent-session.jsonl: canonical events, validated by gh-aw's rules, written line by line.

Rules ported from gh-aw @01b3e64: ``agent_session.cjs`` ``isSessionEvent`` and
``normalizeSessionUsage`` (token counts), ``unified_session.cjs`` ``sessionTimestamp`` (ISO with a
zone, or epoch ms) and the ``non_canonical_agent_event`` path; every event we build must also pass
the unified-session schema once gh-aw adds its provenance (``docs/public/schemas/
unified-session.schema.json``, copied in tests/audit/data/gh-aw).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from aw_action.run.redact import Redactor
from aw_action.sinks.agent_session import (
    FILE_NAME,
    AgentSessionWriter,
    Message,
    SessionResult,
    SessionStart,
    SessionUsage,
    ToolComplete,
    ToolStart,
    Turn,
    event,
    validate_file,
    validate_line,
)

SCHEMA = Path(__file__).parents[1] / "audit" / "data" / "gh-aw" / "unified-session.schema.json"


def unified_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(SCHEMA.read_text())
    return jsonschema.Draft7Validator({**schema["items"], "definitions": schema["definitions"]})


def a_run() -> list[dict[str, Any]]:
    """Every event kind the harness writes, as one small run would."""
    usage = SessionUsage(
        input_tokens=30, output_tokens=15, reasoning_output_tokens=4, cache_read_input_tokens=100, total_tokens=149
    )
    return [
        event("session.start", SessionStart(model="anthropic/claude-sonnet-4-6", session_id="s-1", cwd="/ws")),
        event("user.message", Message(content="Triage issue #4.")),
        event("assistant.turn_start", Turn(turn_id="1", model="anthropic/claude-sonnet-4-6")),
        event("assistant.reasoning", Message(content="Look first.", turn_id="1")),
        event("assistant.message", Message(content="Looking.", turn_id="1", model="anthropic/claude-sonnet-4-6")),
        event("tool.execution_start", ToolStart(tool_call_id="t1", tool_name="bash", input={"command": "ls"})),
        event(
            "tool.execution_complete",
            ToolComplete(
                tool_call_id="t1", tool_name="bash", success=True, output="a\nb", duration_ms=12.5, exit_code=0
            ),
        ),
        event("assistant.turn_end", Turn(turn_id="1")),
        event(
            "session.result",
            SessionResult(num_turns=1, duration_ms=2400, total_cost_usd=0.0123, status="success", usage=usage),
        ),
    ]


def test_every_event_we_write_is_canonical_and_passes_the_unified_schema() -> None:
    validator = unified_validator()
    for index, record in enumerate(a_run()):
        assert validate_line(json.dumps(record)) == []
        projected = {
            **record,
            "provenance": {"component": "agent", "phase": "agent", "path": FILE_NAME, "index": index},
        }
        errors = [e.message for e in validator.iter_errors(projected)]
        assert errors == [], (record["type"], errors)


def test_session_result_states_its_cache_semantics() -> None:
    record = a_run()[-1]
    assert record["data"]["usage"]["inputTokensIncludeCache"] is False, "never left to per-provider defaults"
    assert record["data"]["usage"]["cacheReadInputTokens"] == 100


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"type":"session","data":{}}', "containing a dot"),
        ('{"type":3,"data":{}}', "containing a dot"),
        ('{"data":{}}', "containing a dot"),
        ('{"type":"a.b","data":[]}', "data must be an object"),
        ('{"type":"a.b","data":null}', "data must be an object"),
        ('{"type":"a.b"}', "data must be an object"),
        ("[1,2]", "JSON object"),
        ('"a.b"', "JSON object"),
        ("{oops", "not JSON"),
        ('{"type":"session.format","data":{"version":1}}', "no header line"),
        ('{"type":"a.b","data":{},"timestamp":"2026-10-09T18:15:49.057"}', "with a zone"),
        ('{"type":"a.b","data":{},"timestamp":"2026-10-09 18:15:49Z"}', "with a zone"),
        ('{"type":"a.b","data":{},"timestamp":"2026-13-40T18:15:49Z"}', "not a real date"),
        ('{"type":"a.b","data":{},"timestamp":true}', "ISO 8601"),
        ('{"type":"a.b","data":{},"timestamp":1e300}', "out of range"),
        ('{"type":"a.b","data":{"x":NaN}}', "finite"),
        ('{"type":"a.b","data":{},"id":7}', "id must be a string"),
        ('{"type":"session.result","data":{"usage":{"inputTokens":-1}}}', "inputTokens"),
        ('{"type":"session.result","data":{"usage":{"outputTokens":1.5}}}', "outputTokens"),
        ('{"type":"session.result","data":{"usage":{"outputTokens":true}}}', "outputTokens"),
        ('{"type":"session.result","data":{"usage":{"totalTokens":9007199254740992}}}', "totalTokens"),
        ('{"type":"session.result","data":{"usage":{"inputTokensIncludeCache":"no"}}}', "boolean"),
        ('{"type":"session.result","data":{"usage":[1]}}', "usage must be an object"),
    ],
)
def test_non_canonical_lines_are_reported(line: str, problem: str) -> None:
    problems = validate_line(line)
    assert problems and any(problem in p for p in problems), problems


@pytest.mark.parametrize(
    "line",
    [
        '{"type":"custom.thing","data":{}}',
        '{"type":"a.b","data":{},"timestamp":"2026-10-09T18:15:49Z"}',
        '{"type":"a.b","data":{},"timestamp":"2026-10-09T18:15:49.5+02:00"}',
        '{"type":"a.b","data":{},"timestamp":1791569749057}',
        '{"type":"a.b","data":{},"parentId":null}',
        '{"type":"session.result","data":{"usage":{"inputTokens":5.0,"inputTokensIncludeCache":true}}}',
    ],
)
def test_canonical_lines_pass(line: str) -> None:
    assert validate_line(line) == []


def test_unknown_fields_and_non_finite_numbers_never_reach_the_file() -> None:
    with pytest.raises(ValidationError):
        ToolComplete(tool_call_id="t", tool_name="bash", success=True, duration_ms=float("nan"))
    with pytest.raises(ValidationError):
        SessionUsage(input_tokens=-3)
    with pytest.raises(ValidationError):
        Message.model_validate({"content": "x", "surprise": 1})


def test_the_writer_redacts_and_survives_invalid_unicode(tmp_path: Path) -> None:
    writer = AgentSessionWriter(tmp_path, Redactor(["sk-secret-value-42"]))
    writer.emit("user.message", Message(content="key sk-secret-value-42 here"))
    writer.emit(
        "tool.execution_complete", ToolComplete(tool_call_id="t", tool_name="bash", success=False, output="\udcff!")
    )
    writer.close()
    lines = (tmp_path / FILE_NAME).read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["data"]["content"] == "key *** here"
    assert json.loads(lines[1])["data"]["output"] == "?!"
    assert validate_file(tmp_path / FILE_NAME) == []


def test_the_writer_refuses_a_non_canonical_record(tmp_path: Path) -> None:
    writer = AgentSessionWriter(tmp_path, Redactor())
    with pytest.raises(ValueError, match="containing a dot"):
        writer.write({"type": "nodot", "data": {}})
    with pytest.raises(ValueError, match="no header line"):
        writer.write({"type": "session.format", "data": {"version": 1}})
    assert writer.lines == 0 and not (tmp_path / FILE_NAME).exists()


def test_validate_file_catches_blank_and_unterminated_lines(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_text('{"type":"a.b","data":{}}\n\n{"type":"a.b","data":{}}')
    assert validate_file(path) == [(2, "blank line"), (3, "the last line is not terminated")]


WRITER_SCRIPT = """
import sys, time
from pathlib import Path
from aw_action.sinks.agent_session import AgentSessionWriter, Message
from aw_action.run.redact import Redactor
writer = AgentSessionWriter(Path(sys.argv[1]), Redactor())
i = 0
while True:
    writer.emit("assistant.message", Message(content="x" * 5000 + str(i)))
    i += 1
    time.sleep(0.001)
"""


def test_a_killed_writer_leaves_only_whole_canonical_lines(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WRITER_SCRIPT, str(tmp_path)], cwd=Path(__file__).parents[2])
    path = tmp_path / FILE_NAME
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not path.exists() or path.read_bytes().count(b"\n") < 20):
            time.sleep(0.05)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert path.read_bytes().count(b"\n") >= 20, "the writer made progress before it was killed"
    assert validate_file(path) == []
