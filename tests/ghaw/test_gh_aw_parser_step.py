"""What gh-aw's log-parser step does with four real gh-aw-mode runs: success, a failing tool, a
budget stop and a timeout (issue 37).

Each run is the real ``aw-harness`` through the local AWF rig, captured as the compiled agent step
captures it; the definition's ``parseLog`` runs under node in the module gh-aw writes
(``log_parser_rig.parsed``). Then what gh-aw's step does with the answer (``log_parser_bootstrap.cjs``
``runLogParser`` @01b3e64): it writes the entries as ``/tmp/gh-aw/agent-session.jsonl``
(``writeSessionArtifact(path.join(rootDir, "agent-session.jsonl"), ...)``), draws the summary from
the assistant's messages, the tool calls and the result (``log_parser_format.cjs``
``generateSummaryLines`` @04ae90f: a message's first line after ``[n] ◆ ``, its other lines after two
spaces, a tool result's lines after ``   ├ ``, each error after four spaces) and writes the same
text to the step log with ``core.info``, one log line per line.

Not run here: gh-aw's own JavaScript. Its files cannot be vendored into this repository (the search
tool's terms keep upstream code out of commits), so the assertions are on what the parser hands
gh-aw: that the records survive gh-aw's write, that the stop and its fix are in the text gh-aw prints,
and that no line of any string gh-aw could print is a workflow command under the runner's rules.
"""

from __future__ import annotations

import json
import subprocess
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from aw_action.sinks.agent_session import validate_file
from tests.awf.forward_proxy import ForwardProxy
from tests.awf.proxy import AwfProxy, ProviderRoute
from tests.awf.rig import AgentStep
from tests.ghaw.log_parser_rig import captured_step, parsed, session_artifact
from tests.servers import anthropic as ant
from tests.servers.wire import Reply, WireServer
from tests.sinks.support import event_validator

MODEL = "anthropic/claude-sonnet-4-6"
HOSTILE_ANSWER = (
    "Done.\n::error::agent-made annotation\r::notice::after a bare CR\n  ##[group]agent group\u2028::warning::x"
)
HOSTILE_COMMAND = "printf 'first\\n::warning file=a.py::from the tool\\n'; exit 3"
NET_WHITESPACE = "\t\n\v\f\r\x85\xa0"
"""What .NET's ``Char.IsWhiteSpace`` adds to the Zs/Zl/Zp categories: the runner trims it before
matching a workflow command."""


@dataclass
class Ending:
    exit_code: int
    step: AgentStep
    answer: dict[str, Any]

    @property
    def entries(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = self.answer["logEntries"]
        return entries

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e["data"] for e in self.entries if e["type"] == kind]

    @property
    def report(self) -> str:
        *_, last = self.of("assistant.message")
        text: str = last["content"]
        assert text.startswith("aw-harness report · engine aw-harness "), text
        return text

    @property
    def summary(self) -> dict[str, Any]:
        [summary] = self.of("session.result")
        return summary


def run_ending(tmp: Path, replies: list[Reply] | None, *, started_ms: int | None = None, **env: str) -> Ending:
    default = None
    if not replies:
        default = lambda _req: ant.stream_reply(  # noqa: E731
            text="Again.", tool_calls=[("bash", {"command": "echo x"})], use=ant.usage(10_000, 1_000)
        )
    stalled = env.pop("STALL", None)
    if stalled:
        default = lambda _req: Reply(200, {"content-type": "text/event-stream"}, [b""], delay_s=90)  # noqa: E731
    with WireServer(default=default) as upstream, ForwardProxy(deny=True) as squid:
        if replies:
            upstream.script(*replies)
        route = ProviderRoute("anthropic", upstream, "sk-ant-api03-REAL-held-by-the-proxy-37", models=None)
        with AwfProxy({"anthropic": route}) as proxy:
            step = AgentStep(tmp, proxy, MODEL, squid.url, extra_env=env, token_steering=False)
            code, log = captured_step(step, started_ms=started_ms)
    answer = parsed(log, tmp / "actions")
    # gh-aw's step: the entries become /tmp/gh-aw/agent-session.jsonl (writeSessionArtifact, rootDir).
    session_artifact(answer["logEntries"], step.gh_aw / "agent-session.jsonl")
    return Ending(code, step, answer)


@pytest.fixture(scope="module")
def endings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Ending]]:
    success = [
        ant.stream_reply(text="Checking.", tool_calls=[("bash", {"command": "echo fine"})]),
        ant.stream_reply(text=HOSTILE_ANSWER),
    ]
    failing = [
        ant.stream_reply(text="Trying.", tool_calls=[("bash", {"command": HOSTILE_COMMAND})]),
        ant.stream_reply(text="It failed; nothing more to do."),
    ]
    yield {
        "success": run_ending(tmp_path_factory.mktemp("success"), success),
        "failing tool": run_ending(tmp_path_factory.mktemp("failing"), failing),
        # Ten answers' worth of turns in a budget of four, the harness's own credit notices first.
        "budget stop": run_ending(
            tmp_path_factory.mktemp("budget"), None, GH_AW_MAX_AI_CREDITS="22.5", GH_AW_MAX_TURNS="12"
        ),
        # 45 s of the step's one minute went before the harness; the model never answers.
        "timeout": run_ending(
            tmp_path_factory.mktemp("timeout"),
            None,
            started_ms=int(time.time() * 1000) - 45_000,
            GH_AW_TIMEOUT_MINUTES="1",
            STALL="1",
        ),
    }


ENDINGS = ["success", "failing tool", "budget stop", "timeout"]


@pytest.mark.parametrize("name", ENDINGS)
def test_the_harnesss_records_still_verify_after_gh_aws_step(endings: dict[str, Ending], name: str) -> None:
    ending = endings[name]
    records = ending.step.records
    assert records.parent.parent == ending.step.gh_aw and records.name == "aw-harness"
    check = subprocess.run(
        ["sha256sum", "--check", "--strict", "records.sha256"], cwd=records, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr
    assert "agent-session.jsonl: OK" in check.stdout, "the harness's own session is among its records"
    lines = (records / "agent-session.jsonl").read_text().split("\n")
    own = [json.loads(line)["type"] for line in lines if line]
    assert "user.message" in own, "the richer file keeps the prompt"
    assert validate_file(ending.step.gh_aw / "agent-session.jsonl") == [], "gh-aw's file passes its rules"


@pytest.mark.parametrize("name", ENDINGS)
def test_the_story_is_one_schema_checked_record_before_session_end(endings: dict[str, Ending], name: str) -> None:
    log = endings[name].step.gh_aw / "agent-stdio.log"
    records = [json.loads(line) for line in log.read_text().split("\n") if line.startswith('{"event"')]
    validator = event_validator()
    assert [e.message for r in records for e in validator.iter_errors(r)] == []
    names = [r["event"] for r in records]
    assert names.count("run_story") == 1 and names[-2:] == ["run_story", "session_end"]


def test_a_success_reads_as_one(endings: dict[str, Ending]) -> None:
    ending = endings["success"]
    assert ending.exit_code == 0 and ending.summary["status"] == "success" and ending.summary["errors"] == []
    lines = ending.report.splitlines()
    assert lines[1] == "✅ success: Finished (stop reason completed, exit code 0)"
    assert lines[2] == "Why: The agent answered in 2 turns and 1 tool call."
    assert any(line.startswith("Budget: Effective tokens ") and "AI credits " in line for line in lines)


@pytest.mark.parametrize("name", ENDINGS)
def test_the_engine_the_session_and_the_milliseconds_are_shown(endings: dict[str, Ending], name: str) -> None:
    ending = endings[name]
    [start] = ending.of("session.start")
    head, *_, last = ending.report.splitlines()
    assert head == f"aw-harness report · engine aw-harness {version()} · session {start['sessionId']} · model {MODEL}"
    [run] = ending.of("harness.run")
    assert last == f"Duration: {run['duration_ms']:,} ms" and run["duration_ms"] > 0
    if run["duration_ms"] < 500:
        assert "durationMs" not in ending.summary, "gh-aw would print Duration: 0s"
    else:
        assert ending.summary["durationMs"] == run["duration_ms"]


def test_a_failing_tool_is_named_with_its_command_and_error(endings: dict[str, Ending]) -> None:
    ending = endings["failing tool"]
    [done] = [e for e in ending.of("tool.execution_complete")]
    assert done["success"] is False and done["isError"] is True
    assert ending.exit_code == 0, "the agent went on: a warning, not a failure"
    lines = ending.report.splitlines()
    assert lines[1].startswith("⚠️ success: 1 of 1 tool call failed")
    assert "Fix: Check that the answer accounts for the failed call." in lines
    at = lines.index("Failed calls (1):")
    assert lines[at + 1].startswith("- turn 1, bash printf 'first\\n:")
    assert "first" in lines[at + 1], "the head of its error"


def test_a_budget_stop_says_why_and_what_to_change_and_lists_the_notices(endings: dict[str, Ending]) -> None:
    ending = endings["budget stop"]
    assert ending.exit_code == 1
    lines = ending.report.splitlines()
    assert lines[1] == "❌ failure: Stopped by the AI-credit limit (stop reason budget_exceeded, exit code 1)"
    fix = next(line for line in lines if line.startswith("Fix: "))
    assert fix.startswith("Fix: Raise GH_AW_MAX_AI_CREDITS (the workflow's limit) (now 22.50")
    budget = next(line for line in lines if line.startswith("Budget: "))
    assert "AI credits " in budget and " of 22.50 (" in budget
    notices = ending.of("harness.steering")
    assert notices, "the harness's own credit notices, AWF's steering being off"
    at = lines.index(f"Steering notices ({len(notices)}):")
    assert all(lines[at + 1 + i].startswith("- ai_credit at ") for i in range(len(notices)))
    [error] = ending.summary["errors"]
    assert error.startswith("Stopped by the AI-credit limit: ") and fix in f"Fix: {error.split(' Fix: ')[1]}"
    assert ending.answer["maxTurnsHit"] is False


def test_a_timeout_says_why_and_what_to_change(endings: dict[str, Ending]) -> None:
    ending = endings["timeout"]
    assert ending.exit_code == 1
    lines = ending.report.splitlines()
    assert lines[1] == "❌ failure: Time limit reached (stop reason timeout, exit code 1)"
    assert "Fix: Raise GH_AW_TIMEOUT_MINUTES (the workflow's limit) or narrow the task." in lines, (
        "no '(now …)': the run's limit is the time left when it started, not the setting to raise"
    )
    assert any("left of the workflow's time when it started" in line for line in lines)
    [error] = ending.summary["errors"]
    assert (
        error.startswith("Time limit reached: The run stopped after ") and " Fix: Raise GH_AW_TIMEOUT_MINUTES" in error
    )


def test_a_run_that_could_not_start_says_what_is_wrong_and_the_fix(tmp_path: Path) -> None:
    ending = run_ending(tmp_path, [ant.stream_reply(text="never asked")], GH_AW_MAX_TURNS="ten")
    assert ending.exit_code == 2
    [error] = ending.summary["errors"]
    assert error.startswith("GH_AW_MAX_TURNS") and " Fix: " in error, error
    lines = ending.report.splitlines()
    assert lines[1] == "❌ Stop: invocation_error, exit code 2" and lines[2] == f"Error: {error}"
    assert not [line for line in lines if line.startswith("Duration: ")], "no run, no duration"


@pytest.mark.parametrize("name", ENDINGS)
def test_no_line_gh_aw_could_print_is_a_workflow_command(endings: dict[str, Ending], name: str) -> None:
    ending = endings[name]
    texts = [ending.answer["markdown"], *strings(ending.entries)]
    live = [line for text in texts for line in runner_lines(text) if is_command(line)]
    assert live == []


def test_agent_text_made_inert_still_reads_the_same(endings: dict[str, Ending]) -> None:
    said = [m["content"] for m in endings["success"].of("assistant.message")]
    assert "Done.\n:\u200b:error::agent-made annotation\n:\u200b:notice::after a bare CR" in said[-2]
    assert "  #\u200b#[group]agent group\n:\u200b:warning::x" in said[-2]
    [failed] = endings["failing tool"].of("tool.execution_complete")
    assert ":\u200b:warning file=a.py::from the tool" in failed["error"]
    assert [line for line in runner_lines(HOSTILE_ANSWER) if is_command(line)], "the check can fail"


def runner_lines(text: str) -> list[str]:
    """The lines the runner reads out of ``text`` written to the log (it splits on CR, LF, CRLF)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def is_command(line: str) -> bool:
    """The runner's test: after leading whitespace, ``::`` (or the older ``##[``)."""
    start = 0
    while start < len(line) and (
        line[start] in NET_WHITESPACE or unicodedata.category(line[start]) in ("Zs", "Zl", "Zp")
    ):
        start += 1
    return line.startswith(("::", "##["), start)


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def version() -> str:
    import importlib.metadata

    return importlib.metadata.version("aw-harness")
