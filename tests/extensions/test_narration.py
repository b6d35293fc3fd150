"""The narration built-in: readable lines only on a stream people read, and a heartbeat while a
model request is in flight (and none once it ended)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from aw_action.extensions import narration
from aw_action.harness.invocation import Harness
from tests.conftest import base_env, write_run_files


async def _run(tmp_path: Path, script: list[dict[str, Any]], readable: bool) -> list[str]:
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}}, script=script)
    stderr = io.StringIO()
    harness = Harness(config, prompt, base_env(tmp_path), stderr=stderr, readable=readable)
    result = await harness.run()
    assert result.exit_code == 0, stderr.getvalue()
    return stderr.getvalue().splitlines()


async def test_a_long_request_gets_heartbeats_inside_its_turn_and_none_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(narration, "HEARTBEAT_S", 0.2)
    script: list[dict[str, Any]] = [
        {
            "text": "Thinking done.",
            "delay_s": 1.3,
            "tool_calls": [{"name": "bash", "arguments": {"command": "sleep 1"}}],
        },
        {"text": "Finished."},
    ]
    lines = await _run(tmp_path, script, readable=True)
    beats = [i for i, line in enumerate(lines) if line.startswith("  … still waiting for the model (")]
    assert len(beats) >= 2, lines
    events = {i: json.loads(line)["event"] for i, line in enumerate(lines) if line.startswith("{")}
    turn_start = min(i for i, e in events.items() if e == "turn_start")
    answered = min(i for i, e in events.items() if e == "request_end")
    assert all(turn_start < i < answered for i in beats), "heartbeats belong to the request in flight"
    assert lines.index("  Thinking done.") > beats[-1]
    seconds = [float(lines[i].split("(")[1].split(" s")[0]) for i in beats]
    assert seconds == sorted(seconds) and seconds[0] >= 0


async def test_no_readable_lines_on_a_machine_stream(tmp_path: Path) -> None:
    lines = await _run(tmp_path, [{"text": "Hello there.", "delay_s": 0.1}], readable=False)
    assert all(line.startswith(("{", "Turn ", "aw-harness: ")) for line in lines), lines
    assert "  Hello there." not in lines
