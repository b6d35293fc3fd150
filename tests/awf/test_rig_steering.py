"""No doubled notices: with AWF's token steering on, the model gets the api-proxy's AI-credit
notice and none of the harness's, while the harness's budget gate still stops the run; with it
off (the control) the harness steers itself. Through the rig, Anthropic and OpenAI wire formats."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import AWF_CREDIT_NOTICE, AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep, StepRun
from tests.servers import anthropic as ant
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer

CREDIT_PREFIX = "[AWF AI CREDIT WARNING]"
TIME_PREFIX = "[AWF TIME WARNING]"
LOOP: dict[str, tuple[str, str, Callable[[], Reply], str]] = {
    # model, provider, a looping answer (10,000 in / 1,000 out), GH_AW_MAX_AI_CREDITS: five answers' worth
    # at list price, so answer 4 reaches 80 % and answer 5 the limit
    "anthropic": ("anthropic/claude-sonnet-4-6", "anthropic", lambda: ant.stream_reply(
        text="Again.", tool_calls=[("bash", {"command": "echo step"})], use=ant.usage(10_000, 1_000)), "22.5"),
    "openai": ("openai/gpt-4.1", "openai", lambda: oai.chat_stream_reply(
        text="Again.", tool_calls=[("bash", {"command": "echo step"})], model="gpt-4.1",
        use={"prompt_tokens": 10_000, "completion_tokens": 1_000, "total_tokens": 11_000}), "14"),
}  # fmt: skip


def texts_in(body: dict[str, Any], where: str) -> str:
    """The notices a request carried: in its system prompt (AWF's injection) or its messages."""
    if where == "system":
        parts = [json.dumps(body.get("system", "")), json.dumps(body.get("instructions", ""))]
        parts += [json.dumps(m) for m in body.get("messages", []) if m.get("role") == "system"]
    else:
        parts = [json.dumps(m) for m in body.get("messages", []) if m.get("role") != "system"]
    return "\n".join(parts)


def run_looping(tmp: Path, flavour: str, token_steering: bool) -> tuple[StepRun, WireServer, AwfProxy]:
    model, provider, reply, budget = LOOP[flavour]
    with WireServer(default=lambda _req: reply()) as upstream, ForwardProxy(deny=True) as squid:
        route = ProviderRoute(provider, upstream, "sk-REAL-key-held-by-the-proxy-4c1d")
        with AwfProxy({provider: route}, steer_after=3 if token_steering else None) as proxy:
            step = AgentStep(tmp, proxy, model, squid.url, token_steering=token_steering)
            step.extra_env = {"GH_AW_MAX_AI_CREDITS": budget, "GH_AW_MAX_TURNS": "12"}
            return step.run(), upstream, proxy


@pytest.mark.parametrize("flavour", sorted(LOOP))
@pytest.mark.parametrize("token_steering", [True, False], ids=["awf-steers", "harness-steers"])
def test_the_model_never_gets_two_ladders_of_credit_notices(tmp_path: Path, flavour: str, token_steering: bool) -> None:
    run, upstream, proxy = run_looping(tmp_path, flavour, token_steering)
    assert run.result["stop_reason"] == "budget_exceeded", run.stderr[-3000:]
    [stop] = run.events_named("budget_exceeded")
    assert stop["budget"] == "ai_credits" and stop["reason"] == "hard_limit", "the harness's gate stays either way"
    bodies = [req.json for req in upstream.requests]
    from_harness = [b for b in bodies if CREDIT_PREFIX in texts_in(b, "messages")]
    from_awf = [b for b in bodies if CREDIT_PREFIX in texts_in(b, "system")]
    harness_notices = [e for e in run.events_named("steering") if e["type"] == "ai_credit"]
    if token_steering:
        assert proxy.injected and len(from_awf) >= 1, "the api-proxy's notice reached the model"
        assert AWF_CREDIT_NOTICE in texts_in(from_awf[0], "system")
        assert from_harness == [] and harness_notices == [], "no notice of the harness's own"
        [delegated] = run.events_named("steering_delegated")
        assert delegated["source"].endswith("gh-aw/awf-config.json")
    else:
        assert from_awf == [] and run.events_named("steering_delegated") == []
        assert harness_notices and from_harness, "the control: without AWF's steering the harness warns"
    for body in bodies:
        carried = texts_in(body, "system").count(CREDIT_PREFIX) + texts_in(body, "messages").count(CREDIT_PREFIX)
        assert carried <= 1, "one credit notice per request at most, never one from each side"


def test_time_steering_stays_the_harnesss_when_awf_steers_tokens(tmp_path: Path) -> None:
    # 60 s of a 90 s step are gone: 30 s left, the soft deadline at 27 s, the time warning at 13.5 s
    # and the critical notice at 21.6 s. The first tool call sleeps 14 s, so the second request
    # carries a time notice (warning or, on a slow machine, critical) well before the deadline.
    with WireServer() as upstream, ForwardProxy(deny=True) as squid:
        upstream.script(
            ant.stream_reply(text="Waiting.", tool_calls=[("bash", {"command": "sleep 14"})]),
            ant.stream_reply(text="Done."),
        )
        route = ProviderRoute("anthropic", upstream, "sk-REAL-key-held-by-the-proxy-4c1d")
        with AwfProxy({"anthropic": route}) as proxy:
            step = AgentStep(tmp_path, proxy, "anthropic/claude-sonnet-4-6", squid.url)
            step.write_start_ms(int(time.time() * 1000) - 60_000)
            step.extra_env = {"GH_AW_TIMEOUT_MINUTES": "1.5"}
            run = step.run()
    assert run.result["conclusion"] == "success", run.stderr[-3000:]
    assert run.events_named("steering_delegated"), "AWF steers tokens and credits in this step"
    assert [e["type"] for e in run.events_named("steering")] == ["timeout"], "the harness still warns about time"
    assert TIME_PREFIX in texts_in(upstream.requests[1].json, "messages")
