"""Compliance tests T-AW-001, T-AW-005 and T-AW-006 (spec §12), as subprocesses."""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest

from aw_action.exits import SdkLoadError
from aw_action.extensions import builtins
from aw_action.extensions.api import ExtensionAPI
from aw_action.harness import Harness
from tests.conftest import base_env, run_cli, write_run_files
from tests.sinks.support import TOOL_SCRIPT, gfm, gfm_page, jsonl, scripted_run, split_stderr


def test_t_aw_001_invocation_contract(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    assert run.returncode == 0, run.stderr
    events, _, _ = split_stderr(run.stderr)
    assert [e["event"] for e in events].count("session_start") == 1
    assert [e["event"] for e in events].count("session_end") == 1
    assert run.result["conclusion"] == "success" and run.result["exit_code"] == 0
    html = gfm_page((tmp_path / "summary.md").read_text())
    assert "<h2>⚠️ Success · 1 of 2 tool calls failed</h2>" in html
    assert "<code>faux/scripted</code>" in html.split("</p>", 1)[0]
    assert html.count("<table>") >= 3


def test_t_aw_005_session_termination_writes_provenance_end_event_and_turn_table(tmp_path: Path) -> None:
    run = scripted_run(tmp_path, TOOL_SCRIPT)
    assert run.returncode == 0
    provenance = run.output_dir / "context-provenance.jsonl"
    assert [r["source"] for r in jsonl(provenance)] == ["prompt"]
    assert str(provenance) in run.result["files"]
    end = run.events_named("session_end")[0]
    assert end["stop_reason"] == "completed" and end["turns"] == 3
    assert end["tokens"] == run.result["tokens"]["total"]
    html = gfm_page((tmp_path / "summary.md").read_text())
    table = html.split("<h4>Tokens per turn</h4>")[1].split("</table>")[0]
    header = '<th align="right">Turn</th>\n<th align="right">Input Tokens</th>'
    assert header in table
    assert table.count("<tr>") == 1 + 3 + 1  # header, three turns, totals


def _broken_sdk(tmp: Path) -> Path:
    pkg = tmp / "broken" / "anthropic"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text('raise ImportError("simulated broken install: libfoo.so missing")\n')
    return tmp / "broken"


@pytest.mark.skipif(
    importlib.util.find_spec("aw_action.ai.anthropic_messages") is None,
    reason="the Anthropic provider (issue 3) has not landed",
)
def test_t_aw_006_sdk_failure_to_load(tmp_path: Path) -> None:
    config, prompt = write_run_files(tmp_path, {"engine": {"id": "aw", "model": "anthropic/claude-sonnet-4-5"}})
    env = base_env(
        tmp_path,
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        ANTHROPIC_API_KEY="sk-ant-test-000000000000",
        PYTHONPATH=str(_broken_sdk(tmp_path)),
    )
    run = run_cli(["--config", str(config), "--prompt", str(prompt)], env)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    events, _, _ = split_stderr(run.stderr)
    errors = [e for e in events if e["event"] == "error"]
    assert len(errors) == 1 and errors[0]["module"] == "anthropic"
    assert "simulated broken install" in errors[0]["message"]
    names = {e["event"] for e in events}
    assert not names & {"session_start", "agent_start", "request_end"}, "no session may be created"
    assert not (run.output_dir / "session.jsonl").exists()
    summary = (tmp_path / "summary.md").read_text()
    assert "`anthropic`" in summary and "rebuild the action image" in summary.lower()
    assert run.result["exit_code"] == 2 and run.result["stop_reason"] == "sdk_load_error"


async def test_sdk_load_error_from_a_builtin_is_reported_and_no_session_is_created(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness side of T-AW-006, independent of which provider raises it."""

    def failing(api: ExtensionAPI) -> None:
        raise SdkLoadError("openai", "No module named 'openai'")

    monkeypatch.setattr(builtins, "BUILTINS", [("provider-setup", failing), *builtins.BUILTINS[1:]])
    config, prompt = write_run_files(tmp_path, {"engine": {"model": "faux/scripted"}})
    stderr = io.StringIO()
    env = base_env(tmp_path, GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"))
    harness = Harness(config, prompt, env, stderr=stderr)
    result = await harness.run()
    assert result.exit_code == 2 and result.stop_reason == "sdk_load_error"
    assert harness.context is None
    events = [json.loads(line) for line in stderr.getvalue().splitlines() if line.startswith("{")]
    assert [e["event"] for e in events] == ["error"]
    assert events[0]["module"] == "openai"
    html = gfm((tmp_path / "summary.md").read_text())
    assert "<code>openai</code>" in html and "could not start" in html
