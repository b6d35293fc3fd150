"""gh-aw's limits, through the rig: GH_AW_MAX_TURNS, GH_AW_MAX_TOOL_CALLS, the proxy's AI-credit
refusal, GH_AW_TIMEOUT_MINUTES counted from agent_cli_start_ms.txt, the stricter of a config file
and gh-aw winning; bad values named, exit 2."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep, StepRun
from tests.servers import anthropic as ant
from tests.servers.wire import Reply, WireServer

MODEL = "anthropic/claude-sonnet-4-6"
REAL_KEY = "sk-ant-api03-REAL-KEY-limits-test-5a5a"


def looping_agent() -> Reply:
    """An agent that never stops on its own: every answer is another tool call."""
    return ant.stream_reply(text="Again.", tool_calls=[("bash", {"command": "echo step"})], use=ant.usage(100, 10))


@pytest.fixture
def upstream() -> Iterator[WireServer]:
    with WireServer(default=lambda _req: looping_agent()) as server:
        yield server


def run_step(
    tmp: Path, upstream: WireServer, *, budget: int | None = None, start_ms: int | None = None, **env: str
) -> tuple[StepRun, AwfProxy]:
    with ForwardProxy(deny=True) as squid:
        route = ProviderRoute("anthropic", upstream, REAL_KEY)
        with AwfProxy({"anthropic": route}, budget_requests=budget) as proxy:
            step = AgentStep(tmp, proxy, MODEL, squid.url, extra_env=env)
            if start_ms is not None:
                step.write_start_ms(start_ms)
            return step.run(), proxy


def test_gh_aw_max_turns_stops_the_run(tmp_path: Path, upstream: WireServer) -> None:
    run, _ = run_step(tmp_path, upstream, GH_AW_MAX_TURNS="2")
    assert run.returncode == 1, run.stderr[-3000:]
    assert run.result["stop_reason"] == "max_turns"
    assert run.result["turns"] == 2 and len(upstream.requests) == 2


def test_gh_aw_max_tool_calls_blocks_the_call_over_the_limit(tmp_path: Path, upstream: WireServer) -> None:
    run, _ = run_step(tmp_path, upstream, GH_AW_MAX_TOOL_CALLS="3")
    assert run.returncode == 1, run.stderr[-3000:]
    assert run.result["stop_reason"] == "max_tool_calls" and run.result["tool_calls"] == 3
    [record] = run.events_named("budget_exceeded")
    assert (record["budget"], record["used"], record["limit"]) == ("tool_calls", 3, 3)
    ends = [e["is_error"] for e in run.events_named("tool_end")]
    assert ends == [False, False, False, True], "the fourth call was blocked, not run"


@pytest.mark.parametrize(("configured", "gh_aw", "turns"), [(1, "3", 1), (5, "2", 2)])
def test_the_stricter_of_a_config_file_and_gh_aw_wins(
    tmp_path: Path, upstream: WireServer, configured: int, gh_aw: str, turns: int
) -> None:
    config = tmp_path / "harness.json"
    config.write_text(json.dumps({"harness": {"budget": {"max-turns": configured}}}))
    run, _ = run_step(tmp_path, upstream, GH_AW_MAX_TURNS=gh_aw, AW_HARNESS_CONFIG=str(config))
    assert run.result["stop_reason"] == "max_turns" and run.result["turns"] == turns, run.stderr[-3000:]
    assert len(upstream.requests) == turns


def test_the_proxys_ai_credit_refusal_ends_the_run_without_a_retry(tmp_path: Path, upstream: WireServer) -> None:
    run, proxy = run_step(tmp_path, upstream, budget=1)
    assert run.returncode == 1, run.stderr[-3000:]
    assert len(upstream.requests) == 1, "the refused request never reached the model"
    posts = [s for s in proxy.seen if s.method == "POST"]
    assert len(posts) == 2, "one answered request, one refused: the 403 is not retried"
    assert run.events_named("retry") == []
    assert run.result["stop_reason"] == "budget_exceeded" and run.result["conclusion"] == "failure"
    [record] = run.events_named("budget_exceeded")
    assert record["budget"] == "ai_credits" and record["reason"] == "external_limit"
    assert (record["used"], record["limit"], record["trigger"]) == (1.25, 1, "api_proxy"), "the proxy's own figures"
    assert run.events_named("error") == []
    summary = (run.step.gh_aw / "agent-step-summary.md").read_text()
    assert "api-proxy refused a request" in summary and "`budget_exceeded`" in summary


def test_timeout_counts_from_agent_cli_start_ms(tmp_path: Path) -> None:
    stalled = Reply(200, {"content-type": "text/event-stream"}, [b""], delay_s=90)
    with WireServer(default=stalled) as server:
        started = int(time.time() * 1000) - 45_000  # 45 s of the step's one minute went before the harness
        run, _ = run_step(tmp_path, server, start_ms=started, GH_AW_TIMEOUT_MINUTES="1")
    assert run.returncode == 1, run.stderr[-3000:]
    assert run.result["stop_reason"] == "timeout"
    [timeout] = run.events_named("timeout")
    assert 0 < timeout["timeout_minutes"] <= 0.25, "the run got what was left of the step's minute, not a minute"


def test_a_step_whose_time_is_already_up_exits_2_naming_the_variable(tmp_path: Path, upstream: WireServer) -> None:
    started = int(time.time() * 1000) - 120_000
    run, _ = run_step(tmp_path, upstream, GH_AW_TIMEOUT_MINUTES="1", start_ms=started)
    assert run.returncode == 2
    assert run.result["error"].startswith("GH_AW_TIMEOUT_MINUTES: the agent step's time is already up")
    assert upstream.requests == []


@pytest.mark.parametrize(
    ("name", "value"),
    [("GH_AW_MAX_TURNS", "ten"), ("GH_AW_TIMEOUT_MINUTES", "inf"), ("GH_AW_MAX_TOOL_CALLS", "-3")],
)
def test_a_malformed_limit_exits_2_naming_it(tmp_path: Path, upstream: WireServer, name: str, value: str) -> None:
    run, _ = run_step(tmp_path, upstream, **{name: value})
    assert run.returncode == 2
    assert run.result["stop_reason"] == "invocation_error" and run.result["error"].startswith(f"{name}: ")
    assert f"aw-harness: error: {name}: " in run.stderr
    assert upstream.requests == []
