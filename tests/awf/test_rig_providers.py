"""The real ``aw-harness`` CLI, run the way gh-aw runs our engine, through a local AWF rig.

For each provider path (Anthropic Messages, OpenAI Chat Completions, Copilot API chat and
responses) a scripted agent calls ``safeoutputs create_issue ...`` from bash, then answers. The
harness holds only AWF's placeholders: the real key lives in the proxy and must never show up in
anything the harness writes.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from aw_action.sinks.agent_session import validate_file
from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import PLACEHOLDERS, AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep, StepRun
from tests.servers import anthropic as ant
from tests.servers import copilot as cop
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer

REAL_KEYS = {
    "anthropic": "sk-ant-api03-REAL-KEY-held-by-the-proxy-7d1c",
    "openai": "sk-proj-REAL-KEY-held-by-the-proxy-9e2f",
    "copilot": "ghu_REALTOKENheldbytheproxy0123456789ab",
}
ISSUE = ["create_issue", "--title", "Flaky test in ci.yml", "--body", "Seen twice this week."]
COMMAND = "safeoutputs " + shlex.join(ISSUE)


@dataclass(frozen=True)
class Flavour:
    model: str
    provider: str
    tool_turn: Callable[[], Reply]
    final_turn: Callable[[], Reply]
    path: str
    """Path the upstream model server must see (after the proxy)."""


FLAVOURS = {
    "anthropic": Flavour(
        "anthropic/claude-sonnet-4-6",
        "anthropic",
        lambda: ant.stream_reply(
            text="Filing it.", tool_calls=[("bash", {"command": COMMAND})], use=ant.usage(200, 30)
        ),
        lambda: ant.stream_reply(text="Filed the follow-up issue.", use=ant.usage(260, 12)),
        "/v1/messages",
    ),
    "openai": Flavour(
        "openai/gpt-4.1",
        "openai",
        lambda: oai.chat_stream_reply(text="Filing it.", tool_calls=[("bash", {"command": COMMAND})], model="gpt-4.1"),
        lambda: oai.chat_stream_reply(text="Filed the follow-up issue.", model="gpt-4.1"),
        "/v1/chat/completions",
    ),
    "copilot-chat": Flavour(
        "copilot/claude-sonnet-4.5",
        "copilot",
        lambda: cop.chat_stream_reply(text="Filing it.", tool_calls=[("bash", {"command": COMMAND})]),
        lambda: cop.chat_stream_reply(text="Filed the follow-up issue."),
        "/chat/completions",
    ),
    "copilot-responses": Flavour(
        "copilot/gpt-5",
        "copilot",
        lambda: cop.responses_stream_reply(tool_calls=[("bash", {"command": COMMAND})], model="gpt-5"),
        lambda: cop.responses_stream_reply(text="Filed the follow-up issue.", model="gpt-5"),
        "/responses",
    ),
}


@dataclass
class Rigged:
    run: StepRun
    upstream: WireServer
    proxy: AwfProxy
    squid: ForwardProxy
    flavour: Flavour


@pytest.fixture(scope="module", params=sorted(FLAVOURS))
def rigged(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rigged]:
    flavour = FLAVOURS[request.param]
    tmp = tmp_path_factory.mktemp(request.param)
    with WireServer() as upstream, ForwardProxy(deny=True) as squid:
        upstream.script(flavour.tool_turn(), flavour.final_turn())
        route = ProviderRoute(flavour.provider, upstream, REAL_KEYS[flavour.provider], models=None)
        with AwfProxy({flavour.provider: route}) as proxy:
            run = AgentStep(tmp, proxy, flavour.model, squid.url).run()
            yield Rigged(run, upstream, proxy, squid, flavour)


def test_the_run_completes_through_the_proxy(rigged: Rigged) -> None:
    run = rigged.run
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result["conclusion"] == "success" and run.result["model"] == rigged.flavour.model
    assert run.result["final_message"] == "Filed the follow-up issue."
    assert [r.path for r in rigged.upstream.requests] == [rigged.flavour.path] * 2


def test_the_scripted_agents_safeoutputs_call_reaches_the_stub(rigged: Rigged) -> None:
    assert rigged.run.step.stub_calls() == [{"argv": ISSUE, "stdin": ""}]
    assert rigged.run.step.safe_outputs.read_text() == "", "GH_AW_SAFE_OUTPUTS is the MCP server's, never written"


def test_only_placeholders_leave_the_harness_and_only_the_real_key_reaches_upstream(rigged: Rigged) -> None:
    provider, real = rigged.flavour.provider, REAL_KEYS[rigged.flavour.provider]
    placeholder = PLACEHOLDERS[provider]
    assert rigged.proxy.refused == []
    for seen in rigged.proxy.seen:
        assert real not in json.dumps(seen.headers)
    for req in rigged.upstream.requests:
        sent = json.dumps(req.headers)
        assert real in sent and placeholder not in sent, "the proxy swapped the placeholder for the key"


def test_the_real_key_appears_in_nothing_the_harness_writes(rigged: Rigged) -> None:
    written = rigged.run.everything_written()
    assert REAL_KEYS[rigged.flavour.provider] not in written
    for key in REAL_KEYS.values():
        assert key not in written


def test_no_proxy_keeps_model_traffic_off_the_squid_proxy(rigged: Rigged) -> None:
    assert rigged.squid.seen == [], "NO_PROXY lists the api-proxy: nothing went through Squid"


def test_reflect_was_asked_on_the_providers_port(rigged: Rigged) -> None:
    gets = [s for s in rigged.proxy.seen if (s.method, s.path) == ("GET", "/reflect")]
    assert len(gets) == 1
    assert "AWF /reflect at" in rigged.run.stderr


@pytest.mark.parametrize("rigged", ["copilot-chat", "copilot-responses"], indirect=True)
def test_copilot_requests_carry_the_copilot_headers_from_the_harness(rigged: Rigged) -> None:
    calls = [s for s in rigged.proxy.seen if s.method == "POST"]
    assert calls
    for seen in calls:
        assert seen.headers["copilot-integration-id"] == "agentic-workflows"
        assert seen.headers["x-initiator"] == "agent"
        assert seen.headers["x-interaction-id"] == "424242-2", "<GITHUB_RUN_ID>-<GITHUB_RUN_ATTEMPT>, as AWF derives it"


def test_the_step_summary_lands_where_gh_aw_appends_it(rigged: Rigged) -> None:
    summary = rigged.run.step.gh_aw / "agent-step-summary.md"
    assert summary.exists() and rigged.flavour.model in summary.read_text()


def test_agent_session_jsonl_lands_where_gh_aw_collects_it_and_awfs_files_are_left_alone(rigged: Rigged) -> None:
    step = rigged.run.step
    path = step.records / "agent-session.jsonl"
    assert validate_file(path) == [], "canonical line by line (gh-aw's rules)"
    types = [json.loads(line)["type"] for line in path.read_text().splitlines()]
    assert types[0] == "session.start" and types[-2:] == ["session.result", "harness.run"]
    assert types.count("tool.execution_complete") == 1
    messages = [json.loads(line)["data"] for line in path.read_text().splitlines() if '"assistant.message"' in line]
    assert messages[-1]["content"] == "Filed the follow-up issue."
    assert str(path) in rigged.run.result["files"]
    names = {p.name for root in (step.gh_aw, step.workspace, step.runner_temp) for p in root.rglob("*")}
    assert not names & {"token-usage.jsonl", "aw_session.jsonl"}, "AWF's and gh-aw's conclusion job's files"


def test_through_an_http_proxy_when_no_proxy_does_not_cover_the_host(tmp_path: Path) -> None:
    flavour = FLAVOURS["anthropic"]
    with WireServer() as upstream, ForwardProxy() as forwarder:
        upstream.script(flavour.tool_turn(), flavour.final_turn())
        route = ProviderRoute("anthropic", upstream, REAL_KEYS["anthropic"])
        with AwfProxy({"anthropic": route}) as proxy:
            step = AgentStep(tmp_path, proxy, flavour.model, forwarder.url, no_proxy="")
            run = step.run()
            target = route.url
    assert run.returncode == 0, run.stderr[-4000:]
    methods = [(m, uri.removeprefix(target)) for m, uri in forwarder.seen]
    assert methods == [("GET", "/reflect"), ("POST", "/v1/messages"), ("POST", "/v1/messages")]
    assert REAL_KEYS["anthropic"] not in run.everything_written()


def test_a_bare_model_goes_to_the_provider_gh_aw_llm_provider_names(tmp_path: Path) -> None:
    with WireServer() as upstream, ForwardProxy(deny=True) as squid:
        upstream.script(cop.chat_stream_reply(text="Done."))
        route = ProviderRoute("copilot", upstream, REAL_KEYS["copilot"])
        with AwfProxy({"copilot": route}) as proxy:
            step = AgentStep(tmp_path, proxy, "copilot/x", squid.url)
            step.extra_env = {"AW_HARNESS_MODEL": "claude-sonnet-4-5", "GH_AW_LLM_PROVIDER": "github"}
            run = step.run()
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.result["model"] == "copilot/claude-sonnet-4.5"
    [req] = upstream.requests
    assert req.path == "/chat/completions" and req.json["model"] == "claude-sonnet-4.5"


def test_the_agents_shell_sees_no_model_credential_variable(tmp_path: Path) -> None:
    from aw_action.ai.credentials import withheld_variables

    with WireServer() as upstream, ForwardProxy(deny=True) as squid:
        listing = [("bash", {"command": "env | cut -d= -f1 | sort"})]
        upstream.script(ant.stream_reply(tool_calls=listing), ant.stream_reply(text="Listed."))
        route = ProviderRoute("anthropic", upstream, REAL_KEYS["anthropic"])
        with AwfProxy({"anthropic": route}) as proxy:
            run = AgentStep(tmp_path, proxy, "anthropic/claude-sonnet-4-6", squid.url).run()
    assert run.returncode == 0, run.stderr[-4000:]
    tool_results = [
        block["content"][0]["text"]
        for message in upstream.requests[1].json["messages"]
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    names = set(tool_results[0].split())
    assert "PATH" in names, "the listing arrived"
    assert names & withheld_variables() == set()
