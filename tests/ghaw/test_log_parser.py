"""The definition's ``log-parser``, run under node the way gh-aw runs it, over real gh-aw-mode runs.

Each run is the real ``aw-harness`` through the local AWF rig (tests/awf) against the local model
servers, its stdout and stderr captured as the compiled step captures them (``2>&1 | tee -a
agent-stdio.log``). What gh-aw then does with the parser's answer (``log_parser_bootstrap.cjs``
@01b3e64): it renders the step summary from ``logEntries`` (the ``markdown`` only when there are
none), writes ``logEntries`` verbatim as ``/tmp/gh-aw/agent-session.jsonl`` (which the agent
artifact uploads for engines with a parser), fails the step when ``maxTurnsHit``, and reads the
turns and usage from the ``session.result`` entry. The entries are canonical session events,
the form gh-aw's own parsers hand over (``convertLegacyLogEntriesToCopilotEvents``) and the one
``agent-session.jsonl`` must have; gh-aw-shaped here means: a tool call with its command or
path, its result, and a result with the turn count and usage.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from aw_action.sinks.agent_session import (
    Message,
    SessionResult,
    SessionStart,
    ToolComplete,
    ToolStart,
    Turn,
    validate_file,
    validate_record,
)
from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep
from tests.ghaw.log_parser_rig import LOG_PARSER_DELIMITER, captured_step, parsed, parser_source, session_artifact
from tests.servers import anthropic as ant
from tests.servers import copilot as cop
from tests.servers import openai as oai
from tests.servers.wire import Reply, WireServer

COMMAND = "echo hello-from-bash && safeoutputs noop --message checked"
NOTES = "notes.txt"
NOTES_TEXT = "release notes: nothing to do"
DATA_MODELS: dict[str, type[BaseModel]] = {
    "session.start": SessionStart,
    "assistant.turn_start": Turn,
    "assistant.turn_end": Turn,
    "assistant.message": Message,
    "tool.execution_start": ToolStart,
    "tool.execution_complete": ToolComplete,
    "session.result": SessionResult,
}
"""The unified-session schema's per-type data, as ``sinks/agent_session.py`` models it."""


@dataclass(frozen=True)
class Wire:
    model: str
    provider: str
    reply: Callable[..., Reply]


WIRES = {
    "anthropic": Wire("anthropic/claude-sonnet-4-6", "anthropic", ant.stream_reply),
    "openai": Wire("openai/gpt-4.1", "openai", lambda **kw: oai.chat_stream_reply(model="gpt-4.1", **kw)),
    "copilot": Wire("copilot/claude-sonnet-4.5", "copilot", cop.chat_stream_reply),
}


@dataclass
class Parsed:
    exit_code: int
    log: Path
    step: AgentStep
    answer: dict[str, Any]

    @property
    def entries(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = self.answer["logEntries"]
        return entries

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.entries if e["type"] == kind]

    def result(self) -> dict[str, Any]:
        [line] = [line for line in self.log.read_text().splitlines() if line.startswith('{"conclusion"')]
        value: dict[str, Any] = json.loads(line)
        return value


def run_and_parse(tmp: Path, wire: Wire, replies: list[Reply] | None = None, **env: str) -> Parsed:
    default = None if replies else (lambda _req: wire.reply(text="Again.", tool_calls=[("bash", {"command": "true"})]))
    with WireServer(default=default) as upstream, ForwardProxy(deny=True) as squid:
        if replies:
            upstream.script(*replies)
        route = ProviderRoute(wire.provider, upstream, "sk-REAL-key-held-by-the-proxy-parser", models=None)
        with AwfProxy({wire.provider: route}) as proxy:
            step = AgentStep(tmp, proxy, wire.model, squid.url, extra_env=env)
            (step.workspace / NOTES).write_text(NOTES_TEXT)
            code, log = captured_step(step)
    return Parsed(code, log, step, parsed(log, tmp / "actions"))


@pytest.fixture(scope="module", params=sorted(WIRES))
def conversation(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Parsed]:
    wire = WIRES[request.param]
    replies = [
        wire.reply(text="Checking.", tool_calls=[("bash", {"command": COMMAND})]),
        wire.reply(tool_calls=[("read", {"path": NOTES})]),
        wire.reply(text="Nothing to file: the notes say so."),
    ]
    yield run_and_parse(tmp_path_factory.mktemp(request.param), wire, replies)


def test_the_run_succeeds_and_the_parser_reads_it(conversation: Parsed) -> None:
    assert conversation.exit_code == 0, conversation.log.read_text()[-3000:]
    answer = conversation.answer
    assert answer["mcpFailures"] == [] and answer["maxTurnsHit"] is False
    assert answer["markdown"].startswith("**Turns:** 3 · **Tool calls:** 2 · **Tokens:** ")
    assert "**Stop:** `completed`" in answer["markdown"]


def test_each_tool_call_carries_its_command_or_path_and_its_result(conversation: Parsed) -> None:
    starts, ends = conversation.of("tool.execution_start"), conversation.of("tool.execution_complete")
    assert [(s["toolName"], s["input"]) for s in starts] == [("bash", {"command": COMMAND}), ("read", {"path": NOTES})]
    assert [e["toolCallId"] for e in ends] == [s["toolCallId"] for s in starts]
    assert all(e["success"] is True and e["durationMs"] >= 0 for e in ends)
    assert "hello-from-bash" in ends[0]["output"] and NOTES_TEXT in ends[1]["output"]
    assert [s["turnId"] for s in starts] == ["1", "2"], "each call belongs to its turn"


def test_turns_messages_and_the_result_carry_the_runs_numbers(conversation: Parsed) -> None:
    result = conversation.result()
    assert [t["turnId"] for t in conversation.of("assistant.turn_start")] == ["1", "2", "3"]
    assert len(conversation.of("assistant.turn_end")) == 3
    assert conversation.of("session.start")[0]["model"] == result["model"]
    *said, report = conversation.of("assistant.message")
    assert said[-1]["content"] == result["final_message"]
    assert report["content"].startswith("aw-harness report · engine aw-harness "), "the run's story comes last"
    [summary] = conversation.of("session.result")
    tokens = result["tokens"]
    assert summary["numTurns"] == result["turns"] == 3 and summary["status"] == "success"
    assert summary["usage"] == {
        "inputTokens": tokens["input"],
        "outputTokens": tokens["output"],
        "reasoningOutputTokens": tokens["reasoning"],
        "cacheReadInputTokens": tokens["cache_read"],
        "cacheCreationInputTokens": tokens["cache_write"],
        "totalTokens": tokens["total"],
        "inputTokensIncludeCache": False,
    }
    assert summary["usage"]["totalTokens"] > 0
    [run] = conversation.of("harness.run")
    assert run["stop_reason"] == "completed" and run["exit_code"] == 0


def test_every_entry_is_a_canonical_event_with_the_schemas_data(conversation: Parsed) -> None:
    for entry in conversation.entries:
        assert validate_record(entry) == [], entry
        model = DATA_MODELS.get(entry["type"])
        if model is not None:
            model.model_validate(entry["data"])
        else:
            assert entry["type"].startswith("harness."), entry["type"]


def test_what_gh_aw_uploads_is_canonical_and_agrees_with_the_harnesss_own_file(conversation: Parsed) -> None:
    own = conversation.step.records / "agent-session.jsonl"
    own_events = [json.loads(line) for line in own.read_text().splitlines()]
    uploaded = session_artifact(conversation.entries, conversation.step.gh_aw / "agent-session.rewritten.jsonl")
    assert validate_file(uploaded) == []

    def calls(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(e["data"]["toolCallId"], e["type"]) for e in events if e["type"].startswith("tool.")]

    assert calls(conversation.entries) == calls(own_events), "the same tool calls, in order"
    [mine] = [e["data"] for e in own_events if e["type"] == "session.result"]
    [theirs] = conversation.of("session.result")
    assert (theirs["numTurns"], theirs["usage"]) == (mine["numTurns"], mine["usage"])


def test_a_budget_stop_and_the_harnesss_steering_notices_are_in_the_log(tmp_path: Path) -> None:
    # Ten answers' worth of turns in a budget of four (GH_AW_MAX_AI_CREDITS at list price); AWF's
    # token steering off, so the harness sends its own credit notices before the gate stops the run.
    wire = Wire(
        "anthropic/claude-sonnet-4-6",
        "anthropic",
        lambda **kw: ant.stream_reply(use=ant.usage(10_000, 1_000), **kw),
    )
    looping = lambda _req: wire.reply(text="Again.", tool_calls=[("bash", {"command": "echo x"})])  # noqa: E731
    with WireServer(default=looping) as up, ForwardProxy(deny=True) as squid:
        route = ProviderRoute("anthropic", up, "sk-REAL-key-held-by-the-proxy-steer", models=None)
        with AwfProxy({"anthropic": route}) as proxy:
            step = AgentStep(tmp_path, proxy, wire.model, squid.url, token_steering=False)
            step.extra_env = {"GH_AW_MAX_AI_CREDITS": "22.5", "GH_AW_MAX_TURNS": "12"}
            code, log = captured_step(step)
    answer = parsed(log, tmp_path / "actions")
    entries = answer["logEntries"]
    notices = [e["data"] for e in entries if e["type"] == "harness.steering"]
    [stop] = [e["data"] for e in entries if e["type"] == "harness.budget_exceeded"]
    [summary] = [e["data"] for e in entries if e["type"] == "session.result"]
    assert code == 1, log.read_text()[-3000:]
    assert notices and {n["type"] for n in notices} == {"ai_credit"} and all(n["message"] for n in notices)
    assert stop["budget"] == "ai_credits" and stop["forced_termination"] is True
    assert summary["status"] == "error" and summary["errors"][0].startswith("Stopped by the AI-credit limit: ")
    assert "Fix: Raise GH_AW_MAX_AI_CREDITS (the workflow's limit)" in summary["errors"][0]
    assert "**Budget stop**" in answer["markdown"] and f"**Steering notices:** {len(notices)}" in answer["markdown"]
    assert answer["maxTurnsHit"] is False


def test_a_max_turns_stop_is_reported_as_gh_aw_expects(tmp_path: Path) -> None:
    run = run_and_parse(tmp_path, WIRES["anthropic"], GH_AW_MAX_TURNS="2")
    assert run.exit_code == 1
    assert run.answer["maxTurnsHit"] is True and "**Max turns reached**" in run.answer["markdown"]
    [summary] = run.of("session.result")
    assert summary["numTurns"] == 2
    [error] = summary["errors"]
    assert error.startswith("Stopped by the turn limit: ") and "Fix: Raise GH_AW_MAX_TURNS" in error


def test_a_killed_step_and_foreign_lines_still_give_a_result(tmp_path: Path, conversation: Parsed) -> None:
    lines = conversation.log.read_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if '"event": "turn_start", "turn": 3' in line)
    noise = [
        "[INFO] API proxy logs available at: /tmp/gh-aw/sandbox/firewall/logs",
        '{"type": "result", "num_turns": 99}',
        "[1, 2, 3]",
        '{"event": 7, "ts": "x"}',
        "{ not json",
        "Process exiting with code: 124",
    ]
    log = tmp_path / "agent-stdio.log"
    log.write_text("\n".join(noise[:3] + lines[:cut] + noise[3:]) + "\n")
    answer = parsed(log, tmp_path / "actions")
    [summary] = [e["data"] for e in answer["logEntries"] if e["type"] == "session.result"]
    assert summary == {
        "numTurns": 2,
        "status": "error",
        "errors": ["no_result: the step ended before aw-harness wrote its result (killed, or out of time)"],
        "model": conversation.result()["model"],
        "usage": {"inputTokensIncludeCache": False},
    }, "no durationMs: nothing says how long the run took (gh-aw would show 0s)"
    assert "**Stop:** `no_result`" in answer["markdown"]
    assert len([e for e in answer["logEntries"] if e["type"] == "tool.execution_complete"]) == 2


def test_the_parser_survives_gh_aws_heredoc_and_an_empty_log(tmp_path: Path) -> None:
    assert LOG_PARSER_DELIMITER not in parser_source(), "gh-aw would drop the parser step"
    empty = tmp_path / "empty.log"
    empty.write_text("")
    answer = parsed(empty, tmp_path / "actions")
    assert [e["type"] for e in answer["logEntries"]] == ["assistant.message", "session.result", "harness.run"]
    assert answer["logEntries"][1]["data"]["errors"][0].startswith("no_result: ")
