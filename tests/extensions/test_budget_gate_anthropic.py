"""T-AW-003 with the real ``anthropic`` SDK: a local Messages server reports large usage, the
harness aborts, and the server never sees another request."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import base_env, run_cli, write_run_files
from tests.servers import anthropic
from tests.servers.wire import WireServer


def test_budget_gate_with_the_anthropic_sdk_sends_nothing_after_the_abort(tmp_path: Path) -> None:
    first = anthropic.stream_reply(
        text="Writing the file now.",
        tool_calls=[("write", {"path": "must-not-exist.txt", "content": "x"})],
        use=anthropic.usage(input=800, output=50, cache_read=2000),
    )
    never = anthropic.stream_reply(text="this reply must never be requested")
    config = {
        "engine": {"model": "claude-sonnet-4.6"},
        "harness": {"budget": {"max-effective-tokens": 1000}},
    }
    c, p = write_run_files(tmp_path, config)
    with WireServer() as server:
        server.script(first, never)
        env = base_env(
            tmp_path,
            ANTHROPIC_API_KEY="sk-ant-test-0123456789",
            ANTHROPIC_BASE_URL=server.url,
            GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        )
        result = run_cli(["--config", str(c), "--prompt", str(p)], env)
        assert len(server.requests) == 1 and server.pending == 1
    assert result.returncode == 1, result.stderr
    [event] = result.events_named("budget_exceeded")
    # claude-sonnet-4.6 weighs 9x: 9 * (800 + 0.1 * 2000 + 4 * 50) = 10800
    assert event["used"] == 10800 and event["limit"] == 1000 and event["forced_termination"] is True
    assert result.result["stop_reason"] == "budget_exceeded"
    assert not (tmp_path / "ws" / "must-not-exist.txt").exists()
    assert "sk-ant-test-0123456789" not in result.stderr + result.stdout
    assert "Budget exhausted" in (tmp_path / "summary.md").read_text()
