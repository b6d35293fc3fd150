"""T-AW-003 with the real ``anthropic`` SDK: the request goes out with ``max_tokens`` lowered to
what the budget pays for, its turn completes, and the next request is never sent."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import base_env, run_cli, write_run_files
from tests.servers import anthropic
from tests.servers.wire import WireServer


def test_budget_gate_with_the_anthropic_sdk_lowers_max_tokens_and_refuses_the_next_request(tmp_path: Path) -> None:
    first = anthropic.stream_reply(
        text="Writing the file now.",
        tool_calls=[("write", {"path": "written.txt", "content": "x"})],
        use=anthropic.usage(input=800, output=50, cache_read=2000),
    )
    never = anthropic.stream_reply(text="this reply must never be requested")
    config = {
        "engine": {"model": "claude-sonnet-4.6"},
        "harness": {"budget": {"max-effective-tokens": 30000}},
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
    [cap] = result.events_named("budget_cap")
    sent = server.requests[0].json["max_tokens"]
    # claude-sonnet-4.6 weighs 9x: the prompt at 9 a token and the answer at 36 fit in 30000
    assert sent == cap["max_tokens"] and 9 * cap["input_tokens"] + 36 * sent <= 30000 < 9 * cap["input_tokens"] + 36 * (
        sent + 1
    )
    [event] = result.events_named("budget_exceeded")
    # 9 * (800 + 0.1 * 2000 + 4 * 50) = 10800 used; the next prompt (about 2,850 tokens) and a
    # minimal answer would take 9 * 2,850 + 36 * 256 > 19,200 more
    assert event["used"] == 10800 and event["limit"] == 30000 and event["trigger"] == "next_request"
    assert event["used"] + event["next_request"] > 30000
    assert result.result["stop_reason"] == "budget_exceeded"
    assert (tmp_path / "ws" / "written.txt").exists()  # the answer's turn completed
    assert "sk-ant-test-0123456789" not in result.stderr + result.stdout
    assert "## ❌ Failure · Stopped by the effective-token limit" in (tmp_path / "summary.md").read_text()
