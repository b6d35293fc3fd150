"""The cyclic collector's schedule (``run/collector.py``): off while a process entry point starts,
then what is alive frozen out of collections and collection back on, before the first request;
a library caller's collector is left alone."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aw_action.run import collector
from tests.conftest import base_env, run_cli, write_run_files


@pytest.fixture
def restored_collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    collector.start_over()
    gc.unfreeze()
    (gc.enable if enabled else gc.disable)()


def test_held_during_start_then_frozen_and_back_on(restored_collector: None) -> None:
    gc.enable()
    collector.hold_during_start()
    assert not gc.isenabled()
    collector.start_over()
    assert gc.isenabled() and gc.get_freeze_count() > 0
    frozen = gc.get_freeze_count()
    collector.start_over()  # idempotent: nothing more is frozen
    assert gc.get_freeze_count() == frozen


def test_a_callers_collector_is_left_as_it_was(restored_collector: None) -> None:
    gc.disable()
    collector.hold_during_start()  # already off: not ours to turn back on
    collector.start_over()
    assert not gc.isenabled() and gc.get_freeze_count() == 0
    gc.enable()
    collector.start_over()
    assert gc.isenabled() and gc.get_freeze_count() == 0


PROBE = """
import gc, json
from aw_action.agent.tools import ToolResult

SEEN = {"at_setup": gc.isenabled()}

class Probe:
    name = "probe"
    description = "says whether the collector runs"
    parameters = {"type": "object", "properties": {}}

    async def execute(self, call):
        SEEN["in_a_turn"] = gc.isenabled()
        SEEN["frozen"] = gc.get_freeze_count() > 0
        return ToolResult.text(json.dumps(SEEN, sort_keys=True))

def setup(api):
    api.register_tool(Probe())
"""


def test_a_run_starts_with_the_collector_off_and_its_turns_with_it_on(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "gc_probe.py").write_text(PROBE)
    script: list[dict[str, Any]] = [{"tool_calls": [{"id": "c1", "name": "probe", "arguments": {}}]}, {"text": "done"}]
    config = {"engine": {"model": "faux/scripted"}, "harness": {"extensions": ["./gc_probe.py"]}}
    c, p = write_run_files(tmp_path, config, script=script)
    run = run_cli(["--config", str(c), "--prompt", str(p)], base_env(tmp_path))
    assert run.returncode == 0, run.stderr
    entries = [json.loads(line) for line in (run.output_dir / "session.jsonl").read_text().splitlines()]
    [result] = [e["message"] for e in entries if e["type"] == "message" and e["message"]["role"] == "toolResult"]
    seen = json.loads(result["content"][0]["text"])
    assert seen == {"at_setup": False, "in_a_turn": True, "frozen": True}
